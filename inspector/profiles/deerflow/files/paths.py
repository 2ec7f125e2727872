"""The agent's virtual ``/mnt/user-data/...`` paths next to the physical ones in ``thread_data``.

Virtual paths are read with ``user_data.virtual_parts``, the same lexical checks
the file readers use: a path that leaves ``/mnt/user-data/{workspace,uploads,outputs}``
maps to nothing. These are display strings; nothing here reads the disk.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ....media.folders import PathRefused
from .user_data import FOLDERS, VIRTUAL_ROOT, virtual_parts

AREA_KEYS = tuple(f"{area}_path" for area in FOLDERS)  # thread_data's keys for the folders


def _roots(thread_data: Any) -> dict[str, str]:
    if not isinstance(thread_data, dict):
        return {}
    return {area: str(thread_data[f"{area}_path"]) for area in FOLDERS if thread_data.get(f"{area}_path")}


def area_rows(thread_data: Any) -> list[dict[str, Any]]:
    """One row per user-data area: its virtual path and the physical path DeerFlow stored."""
    roots = _roots(thread_data)
    return [{"area": a, "virtual": f"{VIRTUAL_ROOT}/{a}", "physical": roots.get(a)} for a in FOLDERS]


def to_physical(virtual: str, thread_data: Any) -> str | None:
    """``/mnt/user-data/outputs/x.md`` -> ``{outputs_path}/x.md``; None when it is not a user-data path."""
    try:
        area, rest = virtual_parts(virtual)
    except PathRefused:
        return None
    root = _roots(thread_data).get(area)
    if root is None:
        return None
    return posixpath.join(root, rest) if rest else root


def to_virtual(physical: str, thread_data: Any) -> str | None:
    """The inverse of ``to_physical``."""
    if not isinstance(physical, str):
        return None
    normal = posixpath.normpath(physical)
    for area, root in _roots(thread_data).items():
        root = posixpath.normpath(root)
        if normal == root or normal.startswith(root + "/"):
            rest = normal[len(root):].lstrip("/")
            return f"{VIRTUAL_ROOT}/{area}/{rest}" if rest else f"{VIRTUAL_ROOT}/{area}"
    return None


def both_paths(path: str, thread_data: Any) -> tuple[str | None, str | None]:
    """(virtual, physical) for a path given either way."""
    if isinstance(path, str) and path.startswith(VIRTUAL_ROOT):
        return path, to_physical(path, thread_data)
    return to_virtual(path, thread_data), path
