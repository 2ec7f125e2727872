"""Today's DeerFlow middlewares as graph nodes (DeerFlow main, ``agents/middlewares``).

- ``current_uploads``: the ``<current_uploads>`` block prepended to the user's message,
  the files kept in ``additional_kwargs.files`` (UploadsMiddleware since DeerFlow PR 4174);
- ``dynamic_context``: on the first turn, the date reminder as a hidden SystemMessage that
  takes the user message's id, the memory as a hidden HumanMessage, and the user's message
  again as ``{id}__user`` (DynamicContextMiddleware's ID swap);
- ``inject_image_context`` / ``remove_image_context``: viewed images read from disk and
  sent to the model in a transient hidden message ``view-image-context:...``, removed with
  ``RemoveMessage`` after the model call (ViewImageMiddleware), so only the checkpoints
  between the two carry its base64;
- ``durable_context``: before and after each model call, the ``task`` delegations of the
  run (``in_progress``, then their subagent's status) into ``delegations`` and the skill
  files read into ``skill_context``, both through their reducers (DurableContextMiddleware).
"""

from __future__ import annotations

import base64
import posixpath
import uuid
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig

from inspector.demo.agent import uploads_node

IMAGE_CONTEXT_PREFIX = "view-image-context:"
IMAGE_CONTEXT_FLAG = "deerflow_view_image_context"
REMINDER_FLAG = "dynamic_context_reminder"
DEMO_DATE = "2026-08-21, Friday"
DEMO_MEMORY = ("<memory>\nThe user runs logistics for a mid-size retailer; prefers short plans "
               "with savings in EUR.\n</memory>")


def current_uploads_block(entries: list[dict]) -> str:
    """DeerFlow main's ``<current_uploads>`` block (UploadsMiddleware since its PR 4174)."""
    lines = ["<current_uploads>", "The following files were uploaded in this message:", ""]
    for entry in entries:
        lines += [f"- {entry['filename']} ({entry['size'] / 1024:.1f} KB)", f"  Path: {entry['path']}", ""]
    lines += ["To work with these files:", "- Read from the file first.", "</current_uploads>"]
    return "\n".join(lines)


current_uploads = uploads_node(current_uploads_block, keep_original=True)


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


SKILL_ENTRY_KEY = "skill_context_entry"
SKILLS_ROOT = "/mnt/skills"
_DELEGATION_FIELDS = ("description", "subagent_type", "status", "run_id", "result_brief", "result_sha256", "result_ref")


def _delegations(messages: list, run_id: str | None, stamp: str) -> list[dict]:
    """``task`` calls as ledger entries: in progress until their tool message says how the subagent ended."""
    entries: dict[str, dict] = {}
    for message in messages:
        for call in message.tool_calls if isinstance(message, AIMessage) else []:
            if call["name"] == "task" and call.get("id"):
                entries[call["id"]] = {"id": call["id"], "description": str(call["args"].get("description", "")),
                                       "subagent_type": str(call["args"].get("subagent_type", "")),
                                       "status": "in_progress", "created_at": stamp}
    for message in messages:
        entry = entries.get(message.tool_call_id) if isinstance(message, ToolMessage) else None
        status = message.additional_kwargs.get("subagent_status") if entry else None
        if entry and status:
            entry.update(status=status, result_ref=message.id)
            for key in ("result_brief", "result_sha256"):
                if message.additional_kwargs.get(f"subagent_{key}"):
                    entry[key] = message.additional_kwargs[f"subagent_{key}"]
    for entry in entries.values():
        if run_id:
            entry["run_id"] = run_id
    return list(entries.values())


def _skills(messages: list) -> list[dict]:
    """Skill files the model read (a read_file call under /mnt/skills and its stamped result)."""
    paths = {call["id"]: call["args"].get("path") for m in messages if isinstance(m, AIMessage) for call in m.tool_calls
             if call["name"] == "read_file" and str(call["args"].get("path", "")).startswith(SKILLS_ROOT)}
    found = []
    for index, message in enumerate(messages):
        entry = message.additional_kwargs.get(SKILL_ENTRY_KEY) if isinstance(message, ToolMessage) else None
        if entry and paths.get(message.tool_call_id) == entry.get("path"):
            found.append({"name": posixpath.basename(posixpath.dirname(entry["path"])), "path": entry["path"],
                          "description": entry.get("description", ""), "loaded_at": index})
    return found


def durable_context(state: dict, config: RunnableConfig) -> dict:
    """Delegations that changed since the ledger last saw them, and the skills read so far."""
    messages = state["messages"]
    run_id = (config.get("metadata") or {}).get("run_id")
    stamp = f"2026-08-21T09:{len(messages) % 60:02d}:00Z"  # DeerFlow stamps the time it first saw the call
    known = {entry["id"]: entry for entry in state.get("delegations") or []}
    start = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)
                 and not m.additional_kwargs.get("hide_from_ui")), default=0)  # this run's messages only
    changed = [entry for entry in _delegations(messages[start:], run_id, stamp)
               if entry["id"] not in known or any(entry.get(k) != known[entry["id"]].get(k) for k in _DELEGATION_FIELDS)]
    update: dict = {"delegations": changed} if changed else {}
    skills = _skills(messages)
    if skills:
        update["skill_context"] = skills
    return update
