"""The local sandbox's file layout: agent-visible ``/mnt/user-data/...`` paths and their physical folders."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from inspector.profiles.deerflow.files.user_data import FOLDERS, VIRTUAL_ROOT


def thread_data_for(base: Path, thread_id: str) -> dict[str, str]:
    """Physical folders of a thread: ``{base}/threads/{thread_id}/user-data/{workspace,uploads,outputs}``."""
    root = Path(base).resolve() / "threads" / thread_id / "user-data"
    return {f"{folder}_path": str(root / folder) for folder in FOLDERS}


def make_folders(thread_data: Mapping[str, str]) -> None:
    for folder in FOLDERS:
        Path(thread_data[f"{folder}_path"]).mkdir(parents=True, exist_ok=True)


def virtual_path(folder: str, name: str) -> str:
    return f"{VIRTUAL_ROOT}/{folder}/{name}"


def physical_path(virtual: str, thread_data: Mapping[str, str]) -> Path:
    """Map ``/mnt/user-data/{folder}/rest`` into the thread's folder; refuses anything outside it."""
    parts = PurePosixPath(virtual).parts
    if ".." in parts or parts[:3] != ("/", "mnt", "user-data") or len(parts) < 5 or parts[3] not in FOLDERS:
        raise PermissionError(f"Only paths under {VIRTUAL_ROOT}/{{{','.join(FOLDERS)}}}/ are allowed: {virtual}")
    return Path(thread_data[f"{parts[3]}_path"]).joinpath(*parts[4:])
