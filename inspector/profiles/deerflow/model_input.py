"""DeerFlow's knowledge about what its model is sent: which messages live in the state only for one model call.

DeerFlow main's ViewImageMiddleware reads the images a thread viewed from disk
and puts them in a HumanMessage before the model call: its id starts with
``view-image-context:``, its ``additional_kwargs`` carry ``hide_from_ui: true``
and ``deerflow_view_image_context: true``, and its content holds base64 data
URLs. After the call a ``RemoveMessage`` takes it out again, so only the
checkpoints between the two store it (``../shared/reference/deerflow-main-facts.md``).

Applies only to messages that carry these marks; nothing here is true of
LangGraph in general.
"""

from __future__ import annotations

from typing import Any

IMAGE_CONTEXT_PREFIX = "view-image-context:"
IMAGE_CONTEXT_FLAG = "deerflow_view_image_context"
IMAGE_CONTEXT_NOTE = ("DeerFlow's view-image middleware put it in the state for this model call only and removes it "
                      "after the call: the images reach the model here, not through viewed_images")


def transient_reason(message: Any) -> str | None:
    """Why ``message`` is in the state for one model call only (DeerFlow's view-image context), or None."""
    if not isinstance(message, dict):
        return None
    kwargs = message.get("additional_kwargs")
    flagged = isinstance(kwargs, dict) and kwargs.get(IMAGE_CONTEXT_FLAG) is True
    named = isinstance(message.get("id"), str) and message["id"].startswith(IMAGE_CONTEXT_PREFIX)
    return IMAGE_CONTEXT_NOTE if flagged or named else None
