"""Today's DeerFlow middlewares as graph nodes (DeerFlow main, ``agents/middlewares``).

- ``current_uploads``: the ``<current_uploads>`` block prepended to the user's message,
  the files kept in ``additional_kwargs.files`` (UploadsMiddleware since DeerFlow PR 4174);
- ``dynamic_context``: on the first turn, the date reminder as a hidden SystemMessage that
  takes the user message's id, the memory as a hidden HumanMessage, and the user's message
  again as ``{id}__user`` (DynamicContextMiddleware's ID swap);
- ``inject_image_context`` / ``remove_image_context``: viewed images read from disk and
  sent to the model in a transient hidden message ``view-image-context:...``, removed with
  ``RemoveMessage`` after the model call (ViewImageMiddleware), so only the checkpoints
  between the two carry its base64.
"""

from __future__ import annotations

import base64
import uuid
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig

from inspector.demo.sandbox import virtual_path

IMAGE_CONTEXT_PREFIX = "view-image-context:"
IMAGE_CONTEXT_FLAG = "deerflow_view_image_context"
REMINDER_FLAG = "dynamic_context_reminder"
DEMO_DATE = "2026-08-21, Friday"
DEMO_MEMORY = ("<memory>\nThe user runs logistics for a mid-size retailer; prefers short plans "
               "with savings in EUR.\n</memory>")


def _listing(entries: list[dict]) -> str:
    lines = ["<current_uploads>", "The following files were uploaded in this message:", ""]
    for entry in entries:
        lines += [f"- {entry['filename']} ({entry['size'] / 1024:.1f} KB)", f"  Path: {entry['path']}", ""]
    lines += ["To work with these files:", "- Read from the file first.", "</current_uploads>"]
    return "\n".join(lines)


def current_uploads(state: dict) -> dict:
    """UploadsMiddleware: list this run's uploads and announce them in a ``<current_uploads>`` block."""
    last = state["messages"][-1]
    files = last.additional_kwargs.get("files") if isinstance(last, HumanMessage) else None
    if not files:
        return {"uploaded_files": []}
    entries = [{"filename": f["filename"], "size": f["size"], "path": virtual_path("uploads", f["filename"]),
                "extension": Path(f["filename"]).suffix} for f in files]
    kwargs = {**last.additional_kwargs, "original_user_content": last.content}
    announced = last.model_copy(update={"content": f"{_listing(entries)}\n\n{last.content}", "additional_kwargs": kwargs})
    return {"uploaded_files": entries, "messages": [announced]}


def dynamic_context(state: dict) -> dict:
    """DynamicContextMiddleware: the first turn gets the date and memory, hidden, ahead of the user's message."""
    messages = state["messages"]
    if any(m.additional_kwargs.get(REMINDER_FLAG) for m in messages):
        return {}
    user = messages[-1]
    reminder = SystemMessage(f"<system-reminder>\n<current_date>{DEMO_DATE}</current_date>\n</system-reminder>",
                             id=user.id, additional_kwargs={"hide_from_ui": True, REMINDER_FLAG: True,
                                                            "reminder_date": DEMO_DATE})
    memory = HumanMessage(DEMO_MEMORY, id=f"{user.id}__memory",
                          additional_kwargs={"hide_from_ui": True, REMINDER_FLAG: True})
    again = HumanMessage(user.content, id=f"{user.id}__user", name=user.name, additional_kwargs=user.additional_kwargs)
    return {"messages": [reminder, memory, again]}


def _image_context(message: object) -> bool:
    return (isinstance(message, HumanMessage) and (message.id or "").startswith(IMAGE_CONTEXT_PREFIX)
            and message.additional_kwargs.get(IMAGE_CONTEXT_FLAG) is True)


def inject_image_context(state: dict, config: RunnableConfig) -> dict:
    """Before the model call: when the last assistant's view_image calls are answered, the images from disk."""
    messages = state["messages"]
    last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if last_ai is None or not any(c["name"] == "view_image" for c in last_ai.tool_calls):
        return {}
    after = messages[messages.index(last_ai) + 1:]
    answered = {m.tool_call_id for m in after if isinstance(m, ToolMessage)}
    if not {c["id"] for c in last_ai.tool_calls} <= answered or any(_image_context(m) for m in after):
        return {}
    blocks: list[dict] = [{"type": "text", "text": "Here are the images you've viewed:"}]
    for path, entry in (state.get("viewed_images") or {}).items():
        blocks.append({"type": "text", "text": f"\n- **{path}** ({entry['mime_type']})"})
        data = base64.b64encode(Path(entry["actual_path"]).read_bytes()).decode("ascii")
        blocks.append({"type": "image_url", "image_url": {"url": f"data:{entry['mime_type']};base64,{data}"}})
    seed = f"{config['configurable']['thread_id']}:{last_ai.id}"
    message = HumanMessage(blocks, id=f"{IMAGE_CONTEXT_PREFIX}{uuid.uuid5(uuid.NAMESPACE_URL, seed).hex}",
                           additional_kwargs={"hide_from_ui": True, IMAGE_CONTEXT_FLAG: True})
    return {"messages": [message]}


def remove_image_context(state: dict) -> dict:
    """After the model call: the transient image message is removed, so later checkpoints drop its base64."""
    removals = [RemoveMessage(id=m.id) for m in state["messages"] if _image_context(m)]
    return {"messages": removals} if removals else {}
