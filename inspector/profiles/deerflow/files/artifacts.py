"""``artifacts``: the files the agent presented, mapped to disk and flagged.

Flags: a path the inspector refuses (it would leave the thread's user-data
folder), a file not found on this machine (both found by ``located``, as every
file is), a path outside ``/mnt/user-data/outputs``, and paths that name the
same file once normalised (``merge_artifacts`` keeps ``outputs/a/../b.txt`` and
``outputs/b.txt`` as two entries).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ....history.field_history import FieldPoint
from ....media.folders import UserData, normalise
from ....media.located import locate_file
from .user_data import VIRTUAL_ROOT

OUTPUTS = f"{VIRTUAL_ROOT}/outputs/"


@dataclass
class Artifact:
    path: str
    normalised: str
    physical_path: str | None = None
    exists: bool = False
    size: int | None = None
    first_step: int | None = None
    first_checkpoint: str | None = None
    refused: bool = False
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "normalised": self.normalised, "physical_path": self.physical_path,
            "exists": self.exists, "size": self.size, "first_step": self.first_step,
            "first_checkpoint": self.first_checkpoint, "refused": self.refused, "problems": list(self.problems),
        }


def first_appearances(points: list[FieldPoint]) -> dict[str, FieldPoint]:
    """For each artifact path, the first checkpoint of the lineage whose ``artifacts`` held it."""
    first: dict[str, FieldPoint] = {}
    for point in points:
        if point.decoded and isinstance(point.value, list):
            for path in point.value:
                if isinstance(path, str):
                    first.setdefault(path, point)
    return first


def _locate(artifact: Artifact, user_data: UserData | None) -> None:
    found = locate_file(artifact.path, user_data)
    artifact.physical_path, artifact.exists, artifact.size = found.physical_path, found.exists, found.size
    artifact.refused = found.refused
    artifact.problems += found.problems


def list_artifacts(value: Any, user_data: UserData | None = None,
                   first: dict[str, FieldPoint] | None = None) -> list[Artifact]:
    """Every entry of an ``artifacts`` value, located and flagged; ``first`` adds the step each appeared."""
    if not value:
        return []
    if not isinstance(value, list):
        return [Artifact("(artifacts)", "", problems=[f"artifacts is a {type(value).__name__}, not a list"])]
    entries = [str(p) for p in value]
    seen = Counter(normalise(p) for p in entries)
    result = []
    for path in entries:
        artifact = Artifact(path, normalise(path))
        if not artifact.normalised.startswith(OUTPUTS):
            artifact.problems.append(f"outside {OUTPUTS}")
        if seen[artifact.normalised] > 1:
            artifact.problems.append(f"same file as another entry once normalised ({artifact.normalised})")
        _locate(artifact, user_data)
        point = (first or {}).get(path)
        if point is not None:
            artifact.first_step, artifact.first_checkpoint = point.row.step, point.row.checkpoint_id
        result.append(artifact)
    return result
