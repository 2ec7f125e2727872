"""The user-data files a thread's state names, found and read safely for a bundle.

Which files a state names is its profile's knowledge (``Profile.referenced_files``: DeerFlow's
artifacts, viewed images, uploads and message attachments, from every checkpoint and write);
a thread read with a profile that names none gets no file, and the manifest says why. Each
reference is found with ``inspector.media.located`` (as the pages find them) inside the
thread's own folders (a physical ``actual_path`` may also lie in the folders of a thread it
was branched from): a path that would leave them is refused and the refusal is recorded, never read. Files over the per-file cap,
or past the bundle's budget, are left out with the reason. A file's place in the
bundle is where it sits under its thread's folders
(``threads/{thread}/user-data/outputs/report.md``), so the state's paths resolve
inside the bundle as they did at the source.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..media.folders import UserData
from ..media.located import NOT_FOUND, locate_file
from ..media.regular_files import open_regular
from ..store.bundle import user_data_prefix


@dataclass
class References:
    """Paths the state names, in the order first seen: path -> (``actual_path`` or None, where it was named:
    ``artifacts``, ``viewed_images``, ``messages (additional_kwargs.files)``...)."""

    paths: dict[str, tuple[str | None, str]] = field(default_factory=dict)

    def add(self, path: Any, actual: Any = None, source: str = "") -> None:
        if isinstance(path, str) and path:
            self.paths.setdefault(path, (actual if isinstance(actual, str) else None, source))

    def add_refs(self, refs: list[Any]) -> None:
        """``media.located.FileRef`` entries, as a profile's ``referenced_files`` names them."""
        for ref in refs:
            self.add(getattr(ref, "path", None), getattr(ref, "actual_path", None), str(getattr(ref, "source", "")))


@dataclass
class BundledFile:
    path: str  # as the state names it
    member: str  # where it sits in the bundle
    source: Path
    size: int
    named_by: str = ""  # the field (or messages) that names it
    sha256: str = ""
    redacted: bool = False


@dataclass
class FilePlan:
    files: list[BundledFile] = field(default_factory=list)
    left_out: list[dict[str, Any]] = field(default_factory=list)


def place(real: Path, user_data: UserData) -> str | None:
    """Where a file inside the thread's folders, or those of a thread it was branched from, sits in the
    bundle (``threads/{thread}/user-data/outputs/report.md``, symlinks resolved); None elsewhere."""
    for holder in (user_data, *user_data.parents):
        for folder, root in holder.usable.items():
            base = Path(os.path.realpath(root))
            if real != base and real.is_relative_to(base):
                return f"{user_data_prefix(holder.thread_id)}{folder}/{real.relative_to(base).as_posix()}"
    return None


# Why a file was left out, one word each: ``inspector.bundle.summary`` groups and names them.
MISSING, REFUSED, NOT_REGULAR, TOO_BIG, BUDGET, NO_FOLDER = (
    "missing", "refused", "not-regular", "too-big", "budget", "no-folder")
UNREADABLE, SECRET, ROWS = "unreadable", "secret-in-binary", "rows"  # found when writing the bundle


def no_files_note(title: str, app: bool = False, own: str | None = None) -> str:
    """Why a bundle holds no file: the thread's profile names none (the manifest's ``files_note``), in the
    profile's own words (``own``: its ``files.none`` text) where it has them. Naming the app's profile is
    advised only under the generic base (``app`` False): an app's profile already reads it."""
    if own:
        return f"{own.format(title=title)} (what the state itself holds is in the checkpoints)"
    if app:
        return (f"read with the {title} profile, which names no files outside the state: none were looked for "
                "(what the state itself holds is in the checkpoints)")
    return (f"read with the {title} profile, which names no files in a thread's state: none were looked for "
            "(name the app's profile with --profile or the profile setting, if it has one)")


def _left_out(plan: FilePlan, what: str, kind: str, reason: str, count: int = 1) -> None:
    plan.left_out.append({"what": what, "count": count, "kind": kind, "reason": reason})


def plan_files(refs: References, user_data: UserData | None, max_file: int, max_total: int) -> FilePlan:
    """Which referenced files go into the bundle, and what is left out and why (``kind``: one of the words
    above; ``reason``: the sentence). Files are found by ``media.located``, as the pages find them."""
    plan = FilePlan()
    if not refs.paths:
        return plan
    if user_data is None:
        _left_out(plan, f"{len(refs.paths)} file(s) the state names", NO_FOLDER,
                  "the thread's user-data folder was not found (set --data-dir)", len(refs.paths))
        return plan
    total = 0
    seen: set[Path] = set()
    for path, (actual, named_by) in refs.paths.items():
        found = locate_file(path, user_data, actual)
        if found.refused:
            _left_out(plan, path, REFUSED, found.problems[0])
            continue
        real = Path(found.physical_path or path)
        if real in seen:
            continue
        seen.add(real)
        member = place(real, user_data)
        if found.problems and not found.exists:
            kind = MISSING if found.problems[0] == NOT_FOUND else NOT_REGULAR
            _left_out(plan, path, kind, found.problems[0])
        elif member is None:
            _left_out(plan, path, MISSING, NOT_FOUND)
        elif found.size > max_file:
            _left_out(plan, path, TOO_BIG, f"{found.size:,} bytes, over the {max_file:,}-byte limit for one file")
        elif total + found.size > max_total:
            _left_out(plan, path, BUDGET, f"the bundle's {max_total:,}-byte budget for files was used up")
        else:
            total += found.size
            plan.files.append(BundledFile(path, member, real, found.size, named_by=named_by))
    return plan


def read_file(bundled: BundledFile, masker: Any) -> bytes | None:
    """A file's bytes for the bundle (no more than were planned), or None when it must be left out.

    Only a regular file is opened, without blocking (``PathRefused`` otherwise: one swapped for a named pipe
    since the plan). Text (UTF-8, no NUL) is masked like every value. A binary file cannot be masked without
    breaking it: one whose bytes hold a secret's shape (a key in an image's metadata) is left out instead.
    """
    with open_regular(bundled.source) as (fh, _size):
        data = fh.read(bundled.size)
    text = None
    if b"\x00" not in data[:8192]:
        with contextlib.suppress(UnicodeDecodeError):
            text = data.decode("utf-8")
    if text is not None:
        masked = masker.text(text, "files")
        if masked != text:
            data, bundled.redacted = masked.encode("utf-8"), True
    elif masker.holds_secret(data):
        return None
    bundled.sha256 = hashlib.sha256(data).hexdigest()
    return data
