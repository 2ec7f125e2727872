"""``Flag``: one problem a health check finds in a thread. The size checks (``sizes.health``) and each
profile's own lints (``Profile.lints``) give flags of this one shape."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Flag:
    """One problem found in a thread: where, what, why it matters, how it is usually fixed."""

    code: str
    thread_id: str
    field: str | None
    checkpoint_ids: tuple[str, ...]
    summary: str
    why: str
    fix: str

    def __post_init__(self) -> None:  # a checkpoint is named once, however many findings point at it
        object.__setattr__(self, "checkpoint_ids", tuple(dict.fromkeys(self.checkpoint_ids)))

    @property
    def first_checkpoint_id(self) -> str | None:
        return self.checkpoint_ids[0] if self.checkpoint_ids else None
