"""``viewed_images``: DeerFlow's images the agent viewed, each entry decoded and checked with Pillow.

Two entry shapes exist: the documented ``{base64, mime_type}`` (the bytes live in
the state) and today's DeerFlow ``{mime_type, size, actual_path}`` (the bytes live
on disk in the thread's folders, found by ``media.located`` as every file is). Every check result is plain data
the dashboard and the CLI share; a broken image is a list of problems, never an
exception. The checks of the bytes themselves are ``media.images``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ....media.folders import PathRefused, UserData
from ....media.images import (
    MAX_IMAGE_FILE_BYTES,
    MAX_IMAGE_PIXELS,
    cached_thumbnail,
    canonical_mime,
    decode_base64,
    inspect_bytes,
    sha256_of,
    thumbnail,
)
from ....media.located import NOT_FOUND, locate_file, read_head


@dataclass
class ImageCheck:
    """One ``viewed_images`` entry, checked."""

    key: str
    shape: str  # "base64", "file" or "unknown"
    declared_mime: str | None
    format: str | None = None
    mime_type: str | None = None
    width: int | None = None
    height: int | None = None
    byte_size: int | None = None
    declared_size: int | None = None
    stored_chars: int = 0
    physical_path: str | None = None
    sha256: str | None = None
    decoded: bool = False  # Pillow verified and fully loaded it, so a thumbnail can be made
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.key, "shape": self.shape, "declared_mime": self.declared_mime,
            "format": self.format, "mime_type": self.mime_type, "width": self.width, "height": self.height,
            "byte_size": self.byte_size, "declared_size": self.declared_size, "stored_chars": self.stored_chars,
            "physical_path": self.physical_path, "sha256": self.sha256, "decoded": self.decoded, "problems": list(self.problems),
        }



# -- entries ---------------------------------------------------------------------------


def _read_file(key: str, entry: dict, user_data: UserData | None, check: ImageCheck) -> bytes | None:
    """The bytes of the file a file-shaped entry names, found by ``media.located`` as every file is (its
    ``actual_path`` when inside the thread's folders, else its key), read capped; problems go to ``check``."""
    actual = entry.get("actual_path")
    found = locate_file(key, user_data, actual if isinstance(actual, str) else None)
    check.physical_path = found.physical_path
    check.problems += found.problems
    if not found.exists or found.physical_path is None or user_data is None:
        return None
    if found.size is not None and found.size > MAX_IMAGE_FILE_BYTES:
        check.byte_size = found.size
        check.problems.append(f"file is {found.size:,} bytes, over the {MAX_IMAGE_FILE_BYTES:,}-byte limit; not read")
        return None
    try:
        data, size = read_head(found.physical_path, user_data, MAX_IMAGE_FILE_BYTES + 1)
    except PathRefused as exc:
        check.problems.append(f"refused: {exc}")
        return None
    except FileNotFoundError:
        check.problems.append(NOT_FOUND)
        return None
    except OSError as exc:
        check.problems.append(f"file unreadable: {exc.strerror or exc}")
        return None
    if size > MAX_IMAGE_FILE_BYTES or len(data) > MAX_IMAGE_FILE_BYTES:
        check.byte_size = max(size, len(data))
        check.problems.append(f"file is {check.byte_size:,} bytes, over the {MAX_IMAGE_FILE_BYTES:,}-byte limit; not read")
        return None
    return data


def load_entry_bytes(key: str, entry: Any, user_data: UserData | None, check: ImageCheck | None = None) -> bytes | None:
    """The image bytes of one entry (decoded base64, or the file read safely); problems go to ``check``."""
    check = check or ImageCheck(key, "unknown", None)
    if not isinstance(entry, dict):
        check.problems.append(f"entry is a {type(entry).__name__}, not an object")
        return None
    if "base64" in entry:
        try:
            return decode_base64(entry["base64"])
        except ValueError as exc:
            check.problems.append(str(exc))
            return None
    if "actual_path" in entry or "size" in entry:
        return _read_file(key, entry, user_data, check)
    check.problems.append("entry has neither base64 nor actual_path")
    return None


def _shape(entry: Any) -> str:
    if isinstance(entry, dict) and "base64" in entry:
        return "base64"
    if isinstance(entry, dict) and ("actual_path" in entry or "size" in entry):
        return "file"
    return "unknown"


def _compare_declared(check: ImageCheck, entry: dict, data: bytes) -> None:
    declared_size = entry.get("size")
    if isinstance(declared_size, int) and not isinstance(declared_size, bool):
        check.declared_size = declared_size
        if declared_size != len(data):
            check.problems.append(f"declared size {declared_size:,} bytes, file has {len(data):,}")
    declared_hash = entry.get("sha256")
    if isinstance(declared_hash, str) and declared_hash.lower() != check.sha256:
        check.problems.append("declared sha256 does not match the content")
    if check.declared_mime and check.mime_type and check.declared_mime != check.mime_type:
        check.problems.append(f"declared {check.declared_mime} but the content is {check.format} ({check.mime_type})")
    if check.declared_mime is None:
        check.problems.append("no mime_type declared")


def check_entry(key: str, entry: Any, user_data: UserData | None = None,
                max_pixels: int = MAX_IMAGE_PIXELS) -> ImageCheck:
    """Everything known about one ``viewed_images`` entry: real format, size, dimensions, problems."""
    check = ImageCheck(key, _shape(entry), canonical_mime(entry.get("mime_type")) if isinstance(entry, dict) else None)
    if check.shape == "base64":
        raw = entry.get("base64")
        check.stored_chars = len(raw) if isinstance(raw, str) else 0
    data = load_entry_bytes(key, entry, user_data, check)
    if data is None:
        return check
    check.byte_size, check.sha256 = len(data), sha256_of(data)
    facts = inspect_bytes(data, max_pixels)
    check.format, check.mime_type, check.width, check.height = facts.format, facts.mime_type, facts.width, facts.height
    check.problems += facts.problems
    check.decoded = facts.ok
    _compare_declared(check, entry, data)
    return check


def check_viewed_images(viewed: Any, user_data: UserData | None = None,
                        max_pixels: int = MAX_IMAGE_PIXELS) -> list[ImageCheck]:
    """Checks for every entry of a ``viewed_images`` value (``None`` and ``{}`` give none)."""
    if not viewed:
        return []
    if not isinstance(viewed, dict):
        return [ImageCheck("(viewed_images)", "unknown", None,
                           problems=[f"viewed_images is a {type(viewed).__name__}, not an object"])]
    return [check_entry(str(key), entry, user_data, max_pixels) for key, entry in viewed.items()]


def checked_bytes(check: ImageCheck, entry: Any, user_data: UserData | None = None) -> bytes | None:
    """The entry's bytes for showing in full, only while they are the image ``check`` decoded
    (same sha256, still a valid image): a file swapped since the check is not shown."""
    if not check.decoded:
        return None
    data = load_entry_bytes(check.key, entry, user_data)
    if data is None or sha256_of(data) != check.sha256 or not inspect_bytes(data).ok:
        return None
    return data


def entry_thumbnail(key: str, entry: Any, check: ImageCheck, user_data: UserData | None = None) -> bytes | None:
    """The cached PNG thumbnail for a checked entry, or None when it cannot be shown."""
    if not check.decoded or check.sha256 is None:
        return None
    hit = cached_thumbnail(check.sha256)
    if hit is not None:
        return hit
    data = load_entry_bytes(key, entry, user_data)
    if data is None or not inspect_bytes(data).ok:
        return None
    return thumbnail(data)
