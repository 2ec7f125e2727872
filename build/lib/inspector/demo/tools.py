"""The demo agent's tools, shaped like DeerFlow's built-ins; each returns ``Command(update=...)``."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langgraph.prebuilt import ToolRuntime
from langgraph.types import Command, interrupt

from inspector.demo import images
from inspector.demo.content import DEFERRED_TOOLS, SKILL_FILES
from inspector.demo.current import SKILL_ENTRY_KEY, SKILLS_ROOT
from inspector.demo.model import tool_message_id
from inspector.demo.sandbox import VIRTUAL_ROOT, physical_path


def tool_result(runtime: ToolRuntime, name: str, text: str, **update: Any) -> Command:
    message = ToolMessage(text, name=name, tool_call_id=runtime.tool_call_id, id=tool_message_id(runtime.tool_call_id))
    return Command(update={"messages": [message], **update})


def _physical(runtime: ToolRuntime, virtual: str):
    return physical_path(virtual, runtime.state.get("thread_data") or {})


@tool
def write_todos(todos: list[dict], runtime: ToolRuntime) -> Command:
    """Create or update the plan-mode todo list; the whole list is replaced.

    Args:
        todos: The full todo list.
    """
    return tool_result(runtime, "write_todos", f"Updated todo list to {todos}", todos=todos)


@tool
def read_file(path: str, runtime: ToolRuntime,
              start_line: int | None = None, end_line: int | None = None) -> Command:
    """Read a text file, optionally a range of lines (1-based, inclusive).

    Args:
        path: Absolute /mnt/user-data path.
        start_line: First line to return.
        end_line: Last line to return.
    """
    if path.startswith(SKILLS_ROOT + "/"):
        return _read_skill(path, runtime)
    lines = _physical(runtime, path).read_text(encoding="utf-8").splitlines()
    first = (start_line or 1) - 1
    return tool_result(runtime, "read_file", "\n".join(lines[first:end_line]))


def _read_skill(path: str, runtime: ToolRuntime) -> Command:
    """A built-in skill file, its result stamped with the skill entry DeerFlow's read tool records."""
    text = SKILL_FILES.get(path)
    if text is None:
        return tool_result(runtime, "read_file", f"Error: no such file {path}")
    entry = {"path": path, "description": text.split("description:", 1)[1].split("\n", 1)[0].strip()}
    message = ToolMessage(text, name="read_file", tool_call_id=runtime.tool_call_id,
                          id=tool_message_id(runtime.tool_call_id), additional_kwargs={SKILL_ENTRY_KEY: entry})
    return Command(update={"messages": [message]})


@tool
def write_file(path: str, content: str, runtime: ToolRuntime) -> Command:
    """Write a text file in the sandbox, replacing it if it exists.

    Args:
        path: Absolute /mnt/user-data path.
        content: The file's text.
    """
    target = _physical(runtime, path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return tool_result(runtime, "write_file", "OK")


@tool
def render_chart(path: str, title: str, labels: list[str], values: list[float], runtime: ToolRuntime) -> Command:
    """Draw a bar chart as a PNG file.

    Args:
        path: Absolute /mnt/user-data path of the PNG.
        title: Chart title.
        labels: One label per bar.
        values: One value per bar.
    """
    target = _physical(runtime, path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(images.bar_chart_png(title, labels, values))
    return tool_result(runtime, "render_chart", f"Chart saved to {path}")


@tool
def present_files(file_paths: list[str], runtime: ToolRuntime) -> Command:
    """Make output files visible to the user; only /mnt/user-data/outputs files can be presented.

    Args:
        file_paths: Absolute /mnt/user-data/outputs paths.
    """
    outside = [p for p in file_paths if not p.startswith(f"{VIRTUAL_ROOT}/outputs/")]
    if outside:
        error = f"Error: only files in {VIRTUAL_ROOT}/outputs can be presented: {outside}"
        return tool_result(runtime, "present_files", error)
    return tool_result(runtime, "present_files", "Successfully presented files", artifacts=file_paths)


@tool("view_image")
def view_image_base64(image_path: str, runtime: ToolRuntime) -> Command:
    """Read an image file so the model can see it (the documented shape: base64 kept in state).

    Args:
        image_path: Absolute /mnt/user-data path of the image.
    """
    data = _physical(runtime, image_path).read_bytes()
    entry = {"base64": base64.b64encode(data).decode("ascii"), "mime_type": images.mime_type_of(image_path)}
    return tool_result(runtime, "view_image", "Successfully read image", viewed_images={image_path: entry})


@tool("view_image")
def view_image_metadata(image_path: str, runtime: ToolRuntime) -> Command:
    """Read an image file so the model can see it (today's shape: metadata only, bytes stay on disk).

    Args:
        image_path: Absolute /mnt/user-data path of the image.
    """
    actual = _physical(runtime, image_path).resolve()
    entry = {"mime_type": images.mime_type_of(image_path), "size": actual.stat().st_size, "actual_path": str(actual)}
    return tool_result(runtime, "view_image", "Successfully read image", viewed_images={image_path: entry})


@tool
def ask_clarification(question: str, clarification_type: str, runtime: ToolRuntime,
                      context: str | None = None, options: list[str] | None = None) -> Command:
    """Ask the user a question and wait for the answer.

    Args:
        question: The question.
        clarification_type: missing_info, ambiguous_requirement, approach_choice, risk_confirmation or suggestion.
        context: Why the question is asked.
        options: Suggested answers.
    """
    answer = interrupt({"question": question, "clarification_type": clarification_type,
                        "context": context, "options": options or []})
    return tool_result(runtime, "ask_clarification", str(answer))


@tool
def tool_search(query: str, runtime: ToolRuntime) -> Command:
    """Find deferred tools by keyword and make them callable from the next model call.

    Args:
        query: Words to match against the deferred tools' names and descriptions.
    """
    catalog_hash = hashlib.sha256("\n".join(sorted(DEFERRED_TOOLS)).encode()).hexdigest()[:16]
    names = [name for name, description in DEFERRED_TOOLS.items()
             if any(word in f"{name} {description}".lower() for word in query.lower().split())]
    return tool_result(runtime, "tool_search", f"Promoted: {', '.join(names) or 'nothing matched'}",
                       promoted={"catalog_hash": catalog_hash, "names": names})


DOCUMENTED_TOOLS = [write_todos, read_file, write_file, render_chart, present_files, view_image_base64,
                    ask_clarification]
CURRENT_TOOLS = [write_todos, read_file, write_file, present_files, view_image_metadata, tool_search]
