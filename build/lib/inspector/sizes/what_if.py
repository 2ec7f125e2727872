"""The what-ifs in words: one sentence per saving, for a thread (``ThreadSizes.what_if``) or the threads
a store report measured (``StoreSizes.what_if``); the CLI prints the lines, the pages join them."""

from __future__ import annotations

from ..formatting import human_bytes
from .accounting import WhatIf


def what_if_lines(what_if: WhatIf) -> list[str]:
    """The what-ifs in words, one line each."""
    base64_in_messages = what_if.base64_in_messages_bytes
    return [
        f"keeping only the newest {what_if.keep_newest} checkpoints per namespace would save "
        f"{human_bytes(what_if.keep_newest_saved_bytes)}",
        f"viewed_images copied into later checkpoints: {human_bytes(what_if.viewed_images_repeated_bytes)} "
        "(DeerFlow's main branch keeps metadata-only entries for the thread's life; only entries holding base64 "
        "make this large)",
        "base64 images stored inside messages: "
        + (f"{human_bytes(base64_in_messages)}, every checkpoint's copy counted (DeerFlow's transient image-context "
           "message; keeping image bytes out of checkpointed messages would save this)"
           if base64_in_messages is not None else "not measured on this store (values are not read item by item)"),
    ]


def what_if_text(what_if: WhatIf) -> str:
    """The what-ifs as one line, for a caption."""
    return " · ".join(what_if_lines(what_if))
