"""A test store shaped like DeerFlow's main branch, written by a real LangGraph graph.

The graph's state is ``inspector.schema.thread_state.ThreadState`` (all nine reducers) or,
in delta mode, the same with ``messages`` as a ``DeltaChannel`` and DeerFlow's
metadata marker. Its nodes write what DeerFlow's middlewares and tools write:
two sandbox nodes racing to the same id, the delegation ledger past its cap of
50 (terminal entries receiving stale "running" writes), skill references past
their cap of 8 with legacy keys, tool promotions across a catalog change, todos
emptied, a goal, metadata-only ``viewed_images`` and the transient
``view-image-context:`` message carrying base64 for one model call,
summarisation with ``RemoveMessage(REMOVE_ALL_MESSAGES)`` and with
``Overwrite``, manual compaction through ``update_state`` and a branch thread
written with ``Overwrite`` values. LangGraph's own ``SqliteSaver`` stores it.
"""

from __future__ import annotations

import base64
import io
import random
import sqlite3
from pathlib import Path
from typing import Annotated, Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.channels import DeltaChannel
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES, add_messages
from langgraph.types import Command, Overwrite, Send

from inspector.schema.thread_state import ThreadState

SNAPSHOT_FREQUENCY = 3
MODE_KEY = "deerflow_checkpoint_channel_mode"
IMAGE_CONTEXT_PREFIX = "view-image-context:"
FULL_THREAD, DELTA_THREAD, BRANCH_THREAD = "df-full", "df-delta", "df-branch"


def fold_messages(state: list, writes: list) -> list:
    """DeerFlow's ``merge_message_writes``: the writes folded with ``add_messages`` semantics."""
    for write in writes:
        state = add_messages(state, write)
    return state


class DeltaThreadState(ThreadState):
    messages: Annotated[list[AnyMessage], DeltaChannel(fold_messages, snapshot_frequency=SNAPSHOT_FREQUENCY)]


def png_base64(seed: int, side: int = 48) -> str:
    """A real PNG of noise (incompressible, so its base64 is large), base64-encoded."""
    from PIL import Image

    rng = random.Random(seed)
    image = Image.frombytes("RGB", (side, side), bytes(rng.randrange(256) for _ in range(side * side * 3)))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


# -- the model: scripted, one action per call --------------------------------------


def call(name: str, **args: Any) -> dict:
    return {"name": name, "args": args}


def _turn_start(messages: list) -> int:
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, HumanMessage) and not str(message.id or "").startswith(IMAGE_CONTEXT_PREFIX):
            return index
    return 0


def model(state: dict, config: RunnableConfig) -> dict:
    """Answers with the turn's next scripted action: tool calls, or the final text."""
    actions = config["configurable"]["actions"]
    done = sum(isinstance(m, AIMessage) for m in state["messages"][_turn_start(state["messages"]):])
    action = actions[min(done, len(actions) - 1)] if done < len(actions) else "Done."
    number = sum(isinstance(m, AIMessage) for m in state["messages"])
    if isinstance(action, str):
        return {"messages": [AIMessage(action, id=f"ai-{config['configurable']['thread_id']}-{number}")]}
    calls = [{"id": f"call-{number}-{i}", "name": c["name"], "args": c["args"]} for i, c in enumerate(action)]
    return {"messages": [AIMessage("", tool_calls=calls, id=f"ai-{config['configurable']['thread_id']}-{number}")]}


# -- DeerFlow's middlewares as nodes ------------------------------------------------


def thread_data(state: dict, config: RunnableConfig) -> dict:
    root = f"/data/threads/{config['configurable']['thread_id']}/user-data"
    return {"thread_data": {"workspace_path": f"{root}/workspace", "uploads_path": f"{root}/uploads",
                            "outputs_path": f"{root}/outputs"}}


def sandbox_a(state: dict) -> dict:
    return {"sandbox": {"sandbox_id": "sb-local"}}


def sandbox_b(state: dict) -> dict:  # a second tool initialising the same sandbox in the same step
    return {"sandbox": {"sandbox_id": "sb-local"}}


def uploads(state: dict) -> dict:
    last = state["messages"][-1]
    files = last.additional_kwargs.get("files") if isinstance(last, HumanMessage) else None
    return {"uploaded_files": [dict(f) for f in files] if files else None}


def summarize(state: dict, config: RunnableConfig) -> dict:
    """SummarizationMiddleware: old messages removed (RemoveMessage(REMOVE_ALL_MESSAGES) or an Overwrite),
    the summary kept in ``summary_text``."""
    how = config["configurable"].get("summarize")
    if not how:
        return {}
    keep = state["messages"][-1:]
    summary = f"Summary of {len(state['messages']) - 1} earlier message(s)."
    if how == "overwrite":
        return {"messages": Overwrite(list(keep)), "summary_text": summary}
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *keep], "summary_text": summary}


def view_image_context(state: dict) -> dict:
    """ViewImageMiddleware today: the image bytes ride a transient message for one model call."""
    results = []
    for message in reversed(state["messages"]):
        if not isinstance(message, ToolMessage):
            break
        if message.name == "view_image":
            results.append(message)
    if not results:
        return {}
    blocks: list[dict] = []
    for result in results:
        path = result.artifact["path"]  # the bytes are read from disk for this one model call
        blocks += [{"type": "text", "text": f"Here is the image you viewed: {path}"},
                   {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png_base64(len(path))}"}}]
    message = HumanMessage(blocks, id=f"{IMAGE_CONTEXT_PREFIX}{results[0].tool_call_id}",
                           additional_kwargs={"hide_from_ui": True, "deerflow_view_image_context": True})
    return {"messages": [message]}


def drop_image_context(state: dict) -> dict:
    transient = [m.id for m in state["messages"] if str(m.id or "").startswith(IMAGE_CONTEXT_PREFIX)]
    return {"messages": [RemoveMessage(id=mid) for mid in transient]} if transient else {}


def title(state: dict) -> dict:
    return {} if state.get("title") else {"title": "Freight audit"}


# -- tools: each call a Command, several writes to one channel in one task -------------


def _delegation(entry_id: str, status: str, created_at: str, **extra: Any) -> dict:
    return {"id": entry_id, "description": f"research {entry_id}", "subagent_type": "general-purpose",
            "status": status, "created_at": created_at, **extra}


def _tool_update(tool_call: dict, step: int) -> dict:
    name, args = tool_call["name"], tool_call["args"]
    if name == "task":
        ids = args["ids"]
        return {"delegations": [_delegation(i, "running", f"2026-08-01T00:{step:02d}:00Z", run_id=f"run-{i}") for i in ids]}
    if name == "task_done":
        return {"delegations": [_delegation(i, args.get("status", "completed"), "2026-08-02T00:00:00Z",
                                            result_brief=f"{i} done", stop_reason="token_capped")
                                for i in args["ids"]]}
    if name == "task_stale":  # a late "running" report for entries that already ended
        return {"delegations": [_delegation(i, "running", "2026-08-03T00:00:00Z") for i in args["ids"]]}
    if name == "read_skill":
        return {"skill_context": [{"name": p.rsplit("/", 1)[-1], "path": p, "description": "  reads\n  files   well ",
                                   "loaded_at": args.get("loaded_at", step), "body": "# legacy SKILL.md body"}
                                  for p in args["paths"]]}
    if name == "promote":
        return {"promoted": {"catalog_hash": args["catalog"], "names": args["names"]}}
    if name == "write_todos":
        return {"todos": args["todos"]}
    if name == "present_files":
        return {"artifacts": args["paths"]}
    if name == "view_image":
        on_disk = f"/data/threads/x/user-data/uploads/{args['path'].rsplit('/', 1)[-1]}"
        return {"viewed_images": {args["path"]: {"mime_type": "image/png", "size": args["size"], "actual_path": on_disk}}}
    if name == "set_goal":
        return {"goal": {"objective": args["objective"], "status": "active", "created_at": "2026-08-01T00:00:00Z",
                         "updated_at": "2026-08-01T00:00:00Z", "continuation_count": step, "max_continuations": 5,
                         "no_progress_count": 0, "max_no_progress_continuations": 2}}
    if name == "background":
        return {"background_tasks": [{"task_id": "bg-1", "task_name": "index", "status": args["status"],
                                      "updated_at": "2026-08-01T00:00:00Z"}]}
    if name == "ls":  # a tool that only answers
        return {}
    raise ValueError(name)


def _tool_command(tool_call: dict, step: int) -> Command:
    update = _tool_update(tool_call, step)
    artifact = {"path": tool_call["args"]["path"]} if tool_call["name"] == "view_image" else None
    kwargs = {"subagent_status": "completed"} if tool_call["name"] == "task_done" else {}
    result = ToolMessage(f"{tool_call['name']}: ok", tool_call_id=tool_call["id"], name=tool_call["name"],
                         id=f"tool-{tool_call['id']}", artifact=artifact, additional_kwargs=kwargs)
    return Command(update={**update, "messages": [result]})


def tools(state: dict) -> list[Command]:
    last = state["messages"][-1]
    step = len(state["messages"])
    return [_tool_command(tool_call, step) for tool_call in last.tool_calls]


def tool(packet: dict) -> Command:
    """One tool call, run as its own task: LangChain's ``create_agent`` (DeerFlow's agent) sends each call
    of a model turn to its tool node with ``Send``, so a turn's calls run in parallel."""
    return _tool_command(packet["tool_call"], packet["step"])


def _after_model(state: dict) -> str:
    return "tools" if state["messages"][-1].tool_calls else "title"


def _send_calls(state: dict) -> list[Send] | str:
    last = state["messages"][-1]
    if not last.tool_calls:
        return "title"
    return [Send("tools", {"tool_call": call, "step": len(state["messages"])}) for call in last.tool_calls]


def build(schema: type, checkpointer, sends: bool = False):
    """The graph over ``schema``; ``sends``: each tool call runs as its own task, sent with ``Send`` (as
    ``create_agent`` does), instead of one task running a turn's calls in turn."""
    graph = StateGraph(schema)
    for name, node in [("thread_data", thread_data), ("sandbox_a", sandbox_a), ("sandbox_b", sandbox_b),
                       ("uploads", uploads), ("summarize", summarize), ("view_image_context", view_image_context),
                       ("model", model), ("drop_image_context", drop_image_context), ("tools", tool if sends else tools),
                       ("title", title)]:
        graph.add_node(name, node)
    graph.add_edge(START, "thread_data")
    graph.add_edge("thread_data", "sandbox_a")
    graph.add_edge("thread_data", "sandbox_b")
    graph.add_edge(["sandbox_a", "sandbox_b"], "uploads")
    graph.add_edge("uploads", "summarize")
    graph.add_edge("summarize", "view_image_context")
    graph.add_edge("view_image_context", "model")
    graph.add_edge("model", "drop_image_context")
    graph.add_conditional_edges("drop_image_context", _send_calls if sends else _after_model, ["tools", "title"])
    graph.add_edge("tools", "view_image_context")
    graph.add_edge("title", END)
    return graph.compile(checkpointer=checkpointer)


# -- the conversation ----------------------------------------------------------------

TURNS: list[dict] = [
    {"text": "Audit last quarter's freight invoices.", "files": [{"filename": "invoices.csv", "size": 2048,
                                                                   "path": "/mnt/user-data/uploads/invoices.csv",
                                                                   "status": "uploaded"}],
     "actions": [
         [call("set_goal", objective="find overbilled lanes"), call("write_todos", todos=[
             {"content": "Load invoices", "status": "in_progress"}, {"content": "Compare rates", "status": "pending"}])],
         [call("read_skill", paths=[f"/skills/public/s{i}" for i in range(5)]),
          call("promote", catalog="cat-1", names=["web_search", "web_fetch", "web_search"])],
         [call("task", ids=[f"d{i:02d}" for i in range(30)]), call("task", ids=["d00", "d30"])],
         [call("view_image", path="/mnt/user-data/uploads/lanes.png", size=4096)],
         [call("task_done", ids=["d00", "d01", "d02"]), call("task_done", ids=["d03"], status="timed_out"),
          call("present_files", paths=["/mnt/user-data/outputs/audit.md", "/mnt/user-data/outputs/audit.md"])],
         "The first pass is done: three lanes look overbilled.",
     ]},
    {"text": "Check the remaining carriers.", "summarize": "remove_all",
     "actions": [
         [call("task_stale", ids=["d00", "d03"]), call("task", ids=[f"e{i:02d}" for i in range(15)])],
         [call("task", ids=[f"f{i:02d}" for i in range(10)])],
         [call("read_skill", paths=["/skills/public/s1", "/skills/custom/t1", "/skills/custom/t2",
                                    "/skills/custom/t3", "/skills/custom/t4"], loaded_at="late"),
          call("promote", catalog="cat-1", names=["python_repl", "web_fetch"])],
         [call("promote", catalog="cat-2", names=["sql", "sql"]), call("write_todos", todos=[]),
          call("background", status="running")],
         [call("view_image", path="/mnt/user-data/uploads/carriers.png", size=5120),
          call("present_files", paths=["/mnt/user-data/outputs/carriers.md", "/mnt/user-data/outputs/audit.md"])],
         [call("set_goal", objective="find overbilled lanes and carriers"), call("background", status="done")],
         "All carriers checked; the report lists each overbilled lane.",
     ]},
    {"text": "Shorten the report.", "summarize": "overwrite",
     "actions": [[call("present_files", paths=["/mnt/user-data/outputs/short.md"])], "Shortened."]},
]


def run_thread(app, thread_id: str, metadata: dict | None = None, turns: list[dict] = TURNS) -> None:
    for number, turn in enumerate(turns):
        config = {"configurable": {"thread_id": thread_id, "actions": turn["actions"],
                                   "summarize": turn.get("summarize")},
                  "metadata": dict(metadata or {}), "recursion_limit": 200}
        message = HumanMessage(turn["text"], id=f"human-{thread_id}-{number}",
                               additional_kwargs={"files": turn["files"]} if turn.get("files") else {})
        app.invoke({"messages": [message]}, config)
    # manual compaction: update_state with Overwrite values, as DeerFlow's gateway writes them
    config = {"configurable": {"thread_id": thread_id}, "metadata": dict(metadata or {})}
    kept = app.get_state(config).values["messages"][-2:]
    app.update_state(config, {"messages": Overwrite(kept), "todos": Overwrite([{"content": "Review", "status": "pending"}]),
                              "summary_text": "Compacted by hand."}, as_node="tools")


def branch_thread(app, source_id: str, thread_id: str) -> None:
    """DeerFlow's branch: a new thread written by update_state, every reducer value wrapped in Overwrite."""
    values = app.get_state({"configurable": {"thread_id": source_id}}).values
    reducer_fields = {"messages", "sandbox", "artifacts", "todos", "goal", "viewed_images", "promoted",
                      "delegations", "skill_context"}
    wrapped = {k: Overwrite(list(v) if k == "messages" else v) if k in reducer_fields else v for k, v in values.items()}
    config = {"configurable": {"thread_id": thread_id}, "metadata": {"branch_parent_thread_id": source_id}}
    head = app.update_state(config, wrapped, as_node="tools")
    app.update_state(head, {**wrapped, "title": "Freight audit (branch)"}, as_node="tools")


def write_threads(saver) -> None:
    """Write the full-mode, delta-mode and branch threads through ``saver``."""
    full = build(ThreadState, saver)
    run_thread(full, FULL_THREAD)
    branch_thread(full, FULL_THREAD, BRANCH_THREAD)
    run_thread(build(DeltaThreadState, saver), DELTA_THREAD, {MODE_KEY: "delta"})


def write_store(path: Path) -> Path:
    """The three threads in a SQLite store at ``path``, written by LangGraph's SqliteSaver."""
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        write_threads(SqliteSaver(conn))
    finally:
        conn.close()
    return path
