"""What the model saw at one step, and what the step added.

A checkpoint is made by the step whose writes are stored against its parent
(DESIGN rule 9; the caller passes those writes, as the one attribution gives
them). When they put an assistant (``ai``) message into ``messages``, the step
called a model, and the model ran on the messages of the parent's state: the
state at the step's start. They are listed in the order a model node sends
them, every one of them: the ones a chat UI hides, and those a middleware put
in the state for this one call (an app's rule, its profile's ``chat.transient_reason``:
DeerFlow's view-image context, ``profiles.deerflow.model_input``). Their text is as stored (no chat UI's tag
stripping); their inline images are decoded and checked with Pillow, so a page
can show them as pictures. What the step added is the child's messages the
parent lacked (by id), and the ids it rewrote or removed.

A system prompt, the tool schemas and changes a model wrapper makes to the
request are not stored in a checkpoint; ``NOT_STORED`` says so.

May import ``media.images`` (Pillow checks) besides what ``state`` may import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..history.attribution import STEP, Attribution, node_of
from ..media.images import MAX_IMAGE_FILE_BYTES, ImageFacts, canonical_mime, decode_base64, inspect_bytes
from ..profiles import in_force
from ..store import CheckpointState, WriteRecord
from .conversation import Turn, conversation

MESSAGES = "messages"
IMAGE_BLOCKS = ("image_url", "image", "input_image")
NOT_STORED = ("The system prompt, the tool schemas and any change a model wrapper makes to the request are not "
              "stored in a checkpoint, so they are not shown.")


@dataclass(frozen=True)
class InlineImage:
    """An image carried inside a message (a base64 data URL or block), decoded and checked."""

    part: int  # its position among the message's content blocks
    declared_mime: str | None
    size: int  # decoded bytes (0 when it could not be decoded)
    data: bytes | None = None  # the bytes, only when Pillow verified and loaded them
    facts: ImageFacts | None = None
    problems: tuple[str, ...] = ()


@dataclass
class SeenMessage:
    """One message as the model received it."""

    turn: Turn
    images: list[InlineImage] = field(default_factory=list)
    transient: str | None = None  # why it is in the state for this call only


@dataclass
class ModelInput:
    """The input of one model call: the messages at the step's start, and what the step changed."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_id: str | None
    nodes: list[str]  # the node(s) whose writes carry the assistant message(s)
    seen: list[SeenMessage]
    added: list[SeenMessage]
    rewritten: list[str] = field(default_factory=list)  # ids the step wrote again (add_messages replaces by id)
    removed: list[str] = field(default_factory=list)  # ids the parent held that the child lacks
    notes: list[str] = field(default_factory=list)

    @property
    def transient(self) -> list[SeenMessage]:
        return [m for m in self.seen if m.transient]

    @property
    def images(self) -> int:
        return sum(len(m.images) for m in self.seen)


def written_messages(value: Any) -> list[Any]:
    """The messages one write to ``messages`` carries (a list, or one message)."""
    if isinstance(value, list):
        return value
    return [value] if isinstance(value, dict) else []


def _is_ai(message: Any) -> bool:
    return isinstance(message, dict) and message.get("type") in ("ai", "AIMessageChunk")


def model_writes(writes: list[WriteRecord] | None) -> list[WriteRecord]:
    """The writes of a step that put an assistant message into ``messages``: the model call(s)."""
    return [w for w in writes or [] if w.channel == MESSAGES and any(_is_ai(m) for m in written_messages(w.value))]


def _payload(block: dict[str, Any]) -> tuple[str | None, str | None]:
    """(base64 text or data URL, declared mime type) of an inline image block; (None, None) for a link."""
    image = block.get("image_url")
    url = image.get("url") if isinstance(image, dict) else image if isinstance(image, str) else block.get("url")
    if isinstance(url, str) and url.startswith("data:"):
        return url, url[5:].split(",", 1)[0].split(";", 1)[0] or None
    data = block.get("data") or block.get("base64")
    if isinstance(data, str):
        return data, block.get("mime_type") or block.get("media_type")
    return None, None


def inline_image(part: int, block: dict[str, Any]) -> InlineImage | None:
    """The inline image of one content block, decoded and checked with Pillow (None: not inline)."""
    text, mime = _payload(block)
    if text is None:
        return None
    declared = canonical_mime(mime)
    if len(text) > MAX_IMAGE_FILE_BYTES * 4 // 3 + 200:
        return InlineImage(part, declared, len(text) * 3 // 4, problems=(
            f"over {MAX_IMAGE_FILE_BYTES:,} bytes: not decoded",))
    try:
        data = decode_base64(text)
    except ValueError as exc:
        return InlineImage(part, declared, 0, problems=(str(exc),))
    facts = inspect_bytes(data)
    problems = list(facts.problems)
    if facts.ok and declared and facts.mime_type and declared != facts.mime_type:
        problems.append(f"declared {declared} but the bytes are {facts.mime_type}")
    return InlineImage(part, declared, len(data), data if facts.ok else None, facts, tuple(problems))


def inline_images(message: Any) -> list[InlineImage]:
    """The inline images of a message's content blocks, decoded and checked, in block order."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    found = []
    for i, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") in IMAGE_BLOCKS:
            image = inline_image(i, block)
            if image is not None:
                found.append(image)
    return found


def transient_reason(message: Any) -> str | None:
    """Why ``message`` is in the state for one model call only, by the rules of the thread's app (its
    profile's ``chat.transient_reason``); None when it is not, or the app has no such rule."""
    rule = getattr(in_force().chat, "transient_reason", None)
    return rule(message) if rule is not None else None


def _seen(messages: list[Any]) -> list[SeenMessage]:
    return [SeenMessage(turn, inline_images(message), transient_reason(message))
            for turn, message in zip(conversation(messages), messages)]


def _messages(state: CheckpointState | None) -> list[Any]:
    value = state.values.get(MESSAGES) if state is not None else None
    return value if isinstance(value, list) else []


def _id(message: Any) -> str | None:
    return message.get("id") if isinstance(message, dict) and isinstance(message.get("id"), str) else None


def model_input(parent: CheckpointState | None, child: CheckpointState, writes: list[WriteRecord] | None,
                node: Callable[[WriteRecord], str] = node_of) -> ModelInput | None:
    """What the model saw in the step that made ``child`` from ``parent``; None when that step called no model.

    Args:
        parent: The checkpoint the step started at (None: ``child`` has no parent, so no step led to it).
        child: The checkpoint the step made.
        writes: The step's writes (stored against ``parent``), as the attribution of writes to checkpoints
            gives them; None when the store does not say what made ``child``.
        node: Names the node of a write.
    """
    calls = model_writes(writes)
    if parent is None or not calls:
        return None
    before, after = _messages(parent), _messages(child)
    held = {mid for mid in map(_id, before) if mid}
    written = {mid for w in writes or [] if w.channel == MESSAGES for mid in map(_id, written_messages(w.value)) if mid}
    kept = {mid for mid in map(_id, after) if mid}
    # by id (add_messages gives every message one); a message without an id counts as added past the old end
    added = [i for i, m in enumerate(after) if (_id(m) not in held if _id(m) else i >= len(before))]
    turns = conversation(after)  # numbered and matched as in the child's whole conversation
    result = ModelInput(
        thread_id=child.thread_id, checkpoint_ns=child.checkpoint_ns, checkpoint_id=child.checkpoint_id,
        parent_id=parent.checkpoint_id, nodes=list(dict.fromkeys(node(w) for w in calls)),
        seen=_seen(before),
        added=[SeenMessage(turns[i], inline_images(after[i]), transient_reason(after[i])) for i in added],
        rewritten=[mid for mid in held & written & kept],
        removed=[mid for mid in map(_id, before) if mid and mid not in kept],
    )
    result.rewritten.sort(key=[_id(m) for m in before].index)
    if not isinstance(parent.values.get(MESSAGES, []), list):
        result.notes.append("The state at the step's start holds no list of messages.")
    if parent.problems_for(MESSAGES):
        result.notes.append("The messages at the step's start could not all be read: "
                            + "; ".join(p.message for p in parent.problems_for(MESSAGES)))
    return result


def attributed_input(parent: CheckpointState | None, child: CheckpointState, made: Attribution | None) -> ModelInput | None:
    """``model_input`` for the step the one attribution (``history.attribution``) says made ``child``: the
    writes of its tasks, stored against ``parent``, each named by the attribution's node."""
    if parent is None or made is None or made.made_by != STEP:
        return None
    names = {task.task_id: task.node for task in made.tasks}
    writes = [w for w in parent.writes if w.task_id in names]
    return model_input(parent, child, writes, node=lambda w: names[w.task_id])
