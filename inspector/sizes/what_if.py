"""The what-ifs in words: one sentence per saving, for a thread (``ThreadSizes.what_if``) or the threads
a store report measured (``StoreSizes.what_if``); the CLI prints the lines, the pages join them."""

from __future__ import annotations

from ..formatting import human_bytes
from ..profiles import knows, text
from ..profiles.pieces import VIEWED_IMAGES
from .accounting import WhatIf


def what_if_lines(what_if: WhatIf) -> list[str]:
    """The what-ifs in words, one line each (``viewed_images`` and DeerFlow's image-context message only
    where DeerFlow's profile reads the thread, or one of a store's threads measured; in the words of the
    profile in force)."""
    base64_in_messages = what_if.base64_in_messages_bytes
    images = knows(VIEWED_IMAGES) if what_if.images_profile is None else what_if.images_profile
    lines = [
        f"keeping only the newest {what_if.keep_newest} checkpoints per namespace would save "
        f"{human_bytes(what_if.keep_newest_saved_bytes)}",
    ]
    if images:
        lines.append(f"viewed_images copied into later checkpoints: {human_bytes(what_if.viewed_images_repeated_bytes)} "
                     f"({text('what-if.viewed-images')})")
    if base64_in_messages is None:
        lines.append("base64 images stored inside messages: not measured on this store (values are not read item by item)")
    elif images:
        lines.append(f"base64 images stored inside messages: {human_bytes(base64_in_messages)}, every checkpoint's copy "
                     f"counted ({text('what-if.image-context')})")
    elif base64_in_messages:
        lines.append(f"base64 images stored inside messages: {human_bytes(base64_in_messages)}, every checkpoint's copy "
                     "counted (keeping image bytes out of checkpointed messages would save this)")
    return lines


def what_if_text(what_if: WhatIf) -> str:
    """The what-ifs as one line, for a caption."""
    return " · ".join(what_if_lines(what_if))
