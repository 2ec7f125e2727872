"""Base64 image payloads wherever they sit in a thread's history, and what carries them.

The size rows say which stored values hold base64 image data without decoding
anything (a byte search: per message where the store measures items, per channel
value on PostgreSQL). The first checkpoint holding a payload is decoded once to
name its carrier: a message (its id and type, and whether it is DeerFlow's
transient ``view-image-context:`` message) or a field path, and the images it holds,
each by a fingerprint of its payload and the file name the text beside it gives.
Each carrier is then followed through every checkpoint that stores it again, so a
flag counts the distinct images apart from their stored copies and names the
steps, the images, the message ids and the bytes they cost. ``viewed_images`` is
left to the image flags.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..formatting import human_bytes
from ..profiles import in_force, knows, text
from ..profiles.pieces import VIEWED_IMAGES as VIEWED_IMAGES_KNOWLEDGE
from ..store import CheckpointSizes, CheckpointState, StoreError, is_internal_channel

VIEWED_IMAGES = "viewed_images"
MAX_DECODES = 50  # checkpoints decoded per thread to name carriers; later ones are counted, not named
DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+)?;base64,")
# Raw base64 of PNG, JPEG, GIF and WebP files, long enough to be image data rather than a token.
RAW_IMAGE_BASE64 = re.compile(r"^(iVBORw0KGgo|/9j/|R0lGOD|UklGR)[A-Za-z0-9+/]{200}")

Found = dict[str, Any]
Decode = Callable[[CheckpointSizes], CheckpointState | None]


# A file name in the text next to an image ("- **/mnt/user-data/uploads/chart.png** (image/png)"), looked for in
# the last NAME_WINDOW characters only: the search stays short whatever the text.
FILE_NAME = re.compile(r"[\w./~-]*\w\.(?:png|jpe?g|gif|webp|bmp)\b", re.IGNORECASE)
NAME_WINDOW = 300
RAW_MIME = {"iVBORw0KGgo": "image/png", "/9j/": "image/jpeg", "R0lGOD": "image/gif", "UklGR": "image/webp"}
NAMED_IMAGES = 20  # images named one by one in a flag; the rest are counted


def strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string inside ``value`` with its path (``messages[1].content[0].image_url.url``)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from strings(item, f"{path}[{index}]")


def payloads(value: Any, path: str) -> list[tuple[str, int]]:
    """``(path, characters)`` of each base64 image payload inside ``value``."""
    return [(p, len(text)) for p, text in strings(value, path) if DATA_URL.search(text) or RAW_IMAGE_BASE64.match(text)]


@dataclass(frozen=True)
class Image:
    """One base64 image payload: ``digest`` (sha256 of the payload, hex) tells copies of one image apart from
    other images; ``name`` is the file the text beside it names, else None."""

    digest: str
    mime: str
    characters: int
    path: str
    name: str | None

    def line(self) -> str:
        named = self.name or self.path
        return f"{named} ({self.mime}, {self.characters:,} base64 characters, sha256 {self.digest[:12]})"


def _file_name(text: str) -> str | None:
    found = FILE_NAME.findall(text[-NAME_WINDOW:])
    return found[-1] if found else None


def _image(path: str, text: str, name: str | None) -> Image:
    match = DATA_URL.search(text)
    payload = text[match.end():] if match else text
    mime = (match.group(1) if match else None) or next(
        (m for prefix, m in RAW_MIME.items() if payload.startswith(prefix)), "image")
    return Image(hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest(), mime, len(text), path, name)


def images_in(value: Any, path: str, name: str | None = None) -> list[Image]:
    """Every base64 image payload inside ``value``, named by the file a neighbouring text names: the text part
    just before it in a list (a message's content), or the dict key it sits under (``{path: {base64}}``)."""
    if isinstance(value, str):
        return [_image(path, value, name)] if DATA_URL.search(value) or RAW_IMAGE_BASE64.match(value) else []
    found: list[Image] = []
    if isinstance(value, dict):
        for key, item in value.items():
            found += images_in(item, f"{path}.{key}", (_file_name(key) if isinstance(key, str) else None) or name)
    elif isinstance(value, (list, tuple)):
        before: str | None = None
        for index, item in enumerate(value):
            found += images_in(item, f"{path}[{index}]", before or name)
            text = item.get("text") if isinstance(item, dict) else item if isinstance(item, str) else None
            before = _file_name(text) if isinstance(text, str) else None
    return found


def is_image_context(message: Any) -> bool:
    """Whether ``message`` is in the state for one model call only, by the chat rules of the profile in force
    (their ``transient_reason``: DeerFlow's view-image context message)."""
    rule = getattr(in_force().chat, "transient_reason", None)
    return rule is not None and rule(message) is not None


@dataclass
class Carrier:
    """One message or field path holding base64 images, and the checkpoints that store it (a message that holds
    other images under the same id is another carrier)."""

    field: str
    key: str  # a message id (or its index) or a field path
    transient: bool
    role: str | None
    images: list[Image]
    copies: list[tuple[str, int | None, int]] = field(default_factory=list)  # (checkpoint, step, stored bytes)

    @property
    def places(self) -> list[tuple[str, int]]:
        return [(i.path, i.characters) for i in self.images]

    @property
    def characters(self) -> int:
        return sum(i.characters for i in self.images)

    @property
    def stored_bytes(self) -> int:
        return sum(n for _, _, n in self.copies)

    def steps(self) -> str:
        steps = [s for _, s, _ in self.copies if s is not None]
        if not steps:
            return "steps unknown"
        return f"step {steps[0]}" if min(steps) == max(steps) else f"steps {min(steps)}-{max(steps)}"

    def line(self) -> str:
        who = f"message {self.key} ({self.role})" if self.role else self.key
        where = ", ".join(p for p, _ in self.places[:2]) + (f" and {len(self.places) - 2} more" if len(self.places) > 2 else "")
        held = len({cid for cid, _, _ in self.copies})
        times = f"stored {len(self.copies)} time(s) in {held}" if held != len(self.copies) else f"in {held}"
        return (f"{who} at {where}: {len(self.images)} image(s), {self.characters:,} base64 characters, "
                f"{times} checkpoint(s) at {self.steps()} ({human_bytes(self.stored_bytes)} stored)")


def _carriers_in(state: CheckpointState, name: str, indexes: Iterable[int] | None = None) -> list[Carrier]:
    value = state.values.get(name)
    if isinstance(value, list):
        found = []
        for index in indexes if indexes is not None else range(len(value)):
            if index >= len(value):
                continue
            item = value[index]
            images = images_in(item, f"{name}[{index}]")
            if images:
                message = item if isinstance(item, dict) and "type" in item else None
                key = str(message.get("id") or f"#{index}") if message else f"{name}[{index}]"
                found.append(Carrier(name, key, is_image_context(message), message and message.get("type"), images))
        return found
    images = images_in(value, name)
    return [Carrier(name, name, False, None, images)] if images else []


@dataclass
class _Scan:
    decode: Decode
    decoded: int = 0
    unexamined: dict[str, list[str]] = field(default_factory=dict)  # field -> checkpoints not decoded
    carriers: dict[tuple[str, ...], Carrier] = field(default_factory=dict)
    by_value: dict[tuple[str, str, str], list[Carrier]] = field(default_factory=dict)

    def state(self, row: CheckpointSizes, cache: dict[str, CheckpointState | None]) -> CheckpointState | None:
        if row.checkpoint_id not in cache:
            if self.decoded >= MAX_DECODES:
                return None
            self.decoded += 1
            cache[row.checkpoint_id] = self.decode(row)
        return cache[row.checkpoint_id]

    def carrier(self, row: CheckpointSizes, found: Carrier) -> Carrier:
        identity = (row.checkpoint_ns, found.field, found.key, *(i.digest for i in found.images))
        return self.carriers.setdefault(identity, found)


def base64_carriers(rows: list[CheckpointSizes], decode: Decode) -> tuple[list[Carrier], dict[str, list[str]]]:
    """Every carrier of base64 images in ``rows`` (all namespaces), and the checkpoints per field that
    hold base64 but were not decoded (past ``MAX_DECODES``)."""
    scan = _Scan(decode)
    by_item: dict[tuple[str, str, str], Carrier | None] = {}
    for row in sorted(rows, key=lambda r: (r.checkpoint_ns, r.checkpoint_id)):
        cache: dict[str, CheckpointState | None] = {}
        for name, channel in row.channels.items():
            if (name == VIEWED_IMAGES and knows(VIEWED_IMAGES_KNOWLEDGE)) or is_internal_channel(name) \
                    or not channel.holds_base64:
                continue
            if channel.items:
                for index, item in enumerate(channel.items):
                    if not item.base64_bytes:
                        continue
                    key = (row.checkpoint_ns, name, item.digest)
                    if key not in by_item:
                        state = scan.state(row, cache)
                        if state is None:
                            scan.unexamined.setdefault(name, []).append(row.checkpoint_id)
                            continue
                        found = _carriers_in(state, name, [index])
                        by_item[key] = scan.carrier(row, found[0]) if found else None
                    if by_item[key] is not None:
                        by_item[key].copies.append((row.checkpoint_id, row.step, item.bytes))
                continue
            key = (row.checkpoint_ns, name, channel.blob_key or channel.digest)
            if key not in scan.by_value:
                state = scan.state(row, cache)
                if state is None:
                    scan.unexamined.setdefault(name, []).append(row.checkpoint_id)
                    continue
                scan.by_value[key] = [scan.carrier(row, c) for c in _carriers_in(state, name)]
            for carrier in scan.by_value[key]:
                carrier.copies.append((row.checkpoint_id, row.step, carrier.characters))
    return list(scan.carriers.values()), scan.unexamined


@dataclass
class _Seen:
    """One distinct image across a flag's carriers: how many stored copies, in which checkpoints."""

    image: Image
    copies: int = 0
    checkpoints: dict[str, int | None] = field(default_factory=dict)

    def line(self) -> str:
        steps = [s for s in self.checkpoints.values() if s is not None]
        at = (f"step {steps[0]}" if min(steps) == max(steps) else f"steps {min(steps)}-{max(steps)}") if steps \
            else "steps unknown"
        return f"{self.image.line()}: stored {self.copies} time(s) in {len(self.checkpoints)} checkpoint(s) at {at}"


def distinct_images(carriers: list[Carrier]) -> list[_Seen]:
    """The distinct images of ``carriers`` (by payload fingerprint), first seen first, each with its stored copies
    (one per carrier per checkpoint storing it) and the checkpoints holding one."""
    seen: dict[str, _Seen] = {}
    for carrier in carriers:
        for image in carrier.images:
            entry = seen.setdefault(image.digest, _Seen(image))
            if entry.image.name is None and image.name is not None:
                entry.image = image
            for checkpoint, step, _ in carrier.copies:
                entry.copies += 1
                entry.checkpoints.setdefault(checkpoint, step)
    return list(seen.values())


def _flag(code: str, name: str, carriers: list[Carrier], unexamined: list[str], what: str, why: str, fix: str) -> Found:
    checkpoints = tuple(dict.fromkeys([*(cid for c in carriers for cid, _, _ in c.copies), *unexamined]))
    stored = sum(c.stored_bytes for c in carriers)
    images = distinct_images(carriers)
    copies = sum(i.copies for i in images)
    held = len({cid for c in carriers for cid, _, _ in c.copies})
    named = [i.line() for i in images[:NAMED_IMAGES]] + (
        [f"and {len(images) - NAMED_IMAGES} more image(s)"] if len(images) > NAMED_IMAGES else [])
    shown = [c.line() for c in carriers[:5]] + ([f"and {len(carriers) - 5} more"] if len(carriers) > 5 else [])
    if unexamined:
        shown.append(f"{len(unexamined)} more checkpoint(s) hold base64 (not examined)")
    return dict(code=code, field=name, checkpoint_ids=checkpoints,
                summary=(f"{what}: {len(images)} distinct image(s), stored {copies} time(s) in {held} checkpoint(s) "
                         f"({human_bytes(stored)} stored). Images: {'; '.join(named) or 'not examined'}. "
                         f"Carried by: {'; '.join(shown)}"),
                why=why, fix=fix)


def base64_flags(rows: list[CheckpointSizes], decode: Decode) -> list[Found]:
    """Flags for base64 images in a thread's history: DeerFlow's transient image-context messages
    apart from base64 left elsewhere in state."""
    carriers, unexamined = base64_carriers(rows, decode)
    if not knows(VIEWED_IMAGES_KNOWLEDGE):  # only DeerFlow's profile knows its transient image message
        for carrier in carriers:
            carrier.transient = False
    flags = []
    transient = [c for c in carriers if c.transient]
    if transient:
        flags.append(_flag(
            "image-context-in-checkpoints", "messages", transient, [],
            text("health.image-context.summary").format(count=len({c.key for c in transient})),
            text("health.image-context.why"), text("health.image-context.fix"),
        ))
    for name in dict.fromkeys([*(c.field for c in carriers if not c.transient), *unexamined]):
        mine = [c for c in carriers if not c.transient and c.field == name]
        flags.append(_flag(
            "base64-in-state", name, mine, unexamined.get(name, []),
            f"base64 image payloads in {name}",
            "base64 images inside messages and fields are re-stored at every checkpoint and re-sent to the model on every turn",
            text("health.base64.fix"),
        ))
    return flags


def state_decoder(load: Callable[[str, str], CheckpointState], known: Iterable[CheckpointState] = ()) -> Decode:
    """Decode a row through ``load(checkpoint_id, ns)``, reusing states already decoded; None when unreadable."""
    states = {(s.checkpoint_ns, s.checkpoint_id): s for s in known}

    def decode(row: CheckpointSizes) -> CheckpointState | None:
        key = (row.checkpoint_ns, row.checkpoint_id)
        if key not in states:
            try:
                states[key] = load(row.checkpoint_id, row.checkpoint_ns)
            except StoreError:
                return None
        return states[key]

    return decode
