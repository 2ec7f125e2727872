"""The files a DeerFlow user uploaded, as its state names them.

DeerFlow's UploadsMiddleware writes this turn's uploads to ``uploaded_files``, one entry per
file: ``{filename, size, path, extension}``, ``path`` the agent-visible
``/mnt/user-data/uploads/{filename}`` (``thread_data.uploads_path`` on disk). The entries
become ``media.located.FileRef`` references, found and opened like artifacts. The message
side (``additional_kwargs.files`` and the ``<current_uploads>`` block) is read by ``messages``.
"""

from __future__ import annotations

from typing import Any

FIELD = "uploaded_files"
AREA = "uploads"


def _size(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def uploaded_files(values: dict[str, Any]) -> list[Any]:
    """One reference per entry of the state's ``uploaded_files``; an entry that is not an object, or has no
    string ``path``, is a reference with no path (shown, never opened)."""
    from ....media.located import FileRef

    value = values.get(FIELD)
    if not value:
        return []
    entries = value if isinstance(value, list) else [value]
    refs = []
    for entry in entries:
        if not isinstance(entry, dict):
            refs.append(FileRef(f"({type(entry).__name__} entry)", None, source=FIELD))
            continue
        path = entry.get("path") if isinstance(entry.get("path"), str) and entry.get("path") else None
        name = entry.get("filename")
        name = name if isinstance(name, str) and name else (path or "?").rsplit("/", 1)[-1]
        refs.append(FileRef(name, path, _size(entry.get("size")), FIELD))
    return refs
