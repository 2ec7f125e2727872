"""A store of a few hundred threads written by LangGraph's own savers, for the thread search, the threads'
status and their titles: what a support person is told ("my agent forgot the file I uploaded (harbor.pdf)")
must find the thread it describes.

``SEARCH_THREADS`` threads run a graph over DeerFlow's ``ThreadState`` (uploads, a tool round, an answer, a title
node), each on ordinary words, so every word searched is held by many threads; a few threads hold what a person
remembers (``TARGETS``): a first message, an upload's file name, a tool argument, a title, each with distractors
holding the same words elsewhere. One thread plants a key in a message (``SECRET``). ``FORKED`` is forked from
before its title was written and run again: its newest state holds another title. The status threads
(``STATUS_THREADS``) stop at LangChain's human-in-the-loop interrupt, at a plain ``interrupt()``, after a task's
error, mid-step (a process stopped while a step ran: one task's writes stored, no checkpoint after them), and
finish (idle).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from inspector.schema.thread_state import ThreadState

SEARCH_THREADS = 240
PREFIX = "remembered-"
WORDS = ("report", "budget", "meeting", "travel", "invoice", "schedule", "draft", "summary", "contract", "review",
         "customer", "pricing", "launch", "update", "roadmap", "survey", "pdf", "inspection", "harbor", "turbine")
SECRET = "sk-proj-R3memberFake0123456789abcdefGHIJ"
SECRET_THREAD = f"{PREFIX}secret"

# thread -> (what a person remembers, what it is, the node whose step writes it)
MESSAGE_THREAD, UPLOAD_THREAD, TOOL_THREAD, TITLE_THREAD = (f"{PREFIX}message", f"{PREFIX}upload", f"{PREFIX}tool",
                                                            f"{PREFIX}title")
FIRST_MESSAGE = "My agent forgot the lighthouse rota I gave it and the answer about the harbor was huge"
UPLOAD_NAME = "harbor-inspection.pdf"
TOOL_ARGUMENT = "tidal turbine permits"
TITLE = "Quarterly kelp farm review"
TARGETS = {MESSAGE_THREAD: "lighthouse rota", UPLOAD_THREAD: UPLOAD_NAME, TOOL_THREAD: TOOL_ARGUMENT,
           TITLE_THREAD: "kelp farm"}
FORKED = f"{PREFIX}forked"
FORKED_TITLES = ("Title of the first turn", "Title of the branch left behind")

HITL_THREAD, ANSWERED_THREAD = "status-hitl", "status-hitl-answered"
INTERRUPT_THREAD, ERROR_THREAD, BUSY_THREAD, IDLE_THREAD = ("status-interrupt", "status-error", "status-busy",
                                                            "status-idle")
QUESTION = "Which harbor should the survey boat leave from?"
ERROR_TEXT = "the harbor master's API refused the booking"
STATUS_THREADS = {HITL_THREAD: "interrupted", INTERRUPT_THREAD: "interrupted", ERROR_THREAD: "error",
                  BUSY_THREAD: "busy", IDLE_THREAD: "idle", ANSWERED_THREAD: "idle"}


THREAD_DATA = {"workspace_path": "/tmp/w", "uploads_path": "/tmp/u", "outputs_path": "/tmp/o"}  # DeerFlow's folders


def _sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _plan(config: RunnableConfig) -> dict[str, Any]:
    """The plan of the turn: handed to the run in its config (not stored: only primitives reach metadata)."""
    return config["configurable"]["plan"]


def research_graph(checkpointer: BaseCheckpointSaver) -> Any:
    """user input (message, uploads) -> agent (a tool call) -> tools -> answer -> title, over ThreadState."""

    def agent(state: dict, config: RunnableConfig) -> dict:
        plan = _plan(config)
        return {"messages": [AIMessage("Let me look that up.", id=f"{plan['id']}-ai-1", tool_calls=[
            {"name": "web_search", "args": {"query": plan["query"]}, "id": f"{plan['id']}-call", "type": "tool_call"}])]}

    def tools(state: dict) -> dict:
        call = state["messages"][-1].tool_calls[0]
        return {"messages": [ToolMessage(f"results for {call['args']['query']}", tool_call_id=call["id"],
                                         id=f"{call['id']}-result", name="web_search")]}

    def answer(state: dict, config: RunnableConfig) -> dict:
        plan = _plan(config)
        return {"messages": [AIMessage(plan["answer"], id=f"{plan['id']}-ai-2")],
                "artifacts": [f"/mnt/user-data/outputs/{plan['id']}-notes.md"]}

    def title(state: dict, config: RunnableConfig) -> dict:
        return {"title": _plan(config)["title"]}

    graph = StateGraph(ThreadState)
    for name, node in (("agent", agent), ("tools", tools), ("answer", answer), ("title", title)):
        graph.add_node(name, node)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", "tools")
    graph.add_edge("tools", "answer")
    graph.add_edge("answer", "title")
    graph.add_edge("title", END)
    return graph.compile(checkpointer=checkpointer)


def plans(count: int = SEARCH_THREADS) -> Iterator[dict[str, Any]]:
    """Each search thread's words: its first message, uploads, tool query, answer and title."""
    rng = random.Random(33)
    for index in range(count):
        yield {"id": f"{PREFIX}{index:04d}", "message": _sentence(rng), "uploads": [f"{rng.choice(WORDS)}-{index}.txt"],
               "query": _sentence(rng, 4), "answer": _sentence(rng, 30), "title": f"{_sentence(rng, 3).title()} notes"}
    # what people remember, and threads holding the same words elsewhere
    yield {"id": MESSAGE_THREAD, "message": FIRST_MESSAGE, "uploads": ["notes.txt"], "query": "rota",
           "answer": "Here is the harbor summary.", "title": "Harbor questions"}
    yield {"id": f"{PREFIX}message-echo", "message": "lighthouse photos", "uploads": ["rota.txt"], "query": "rota",
           "answer": "The lighthouse is open on weekdays, the museum next to it keeps a rota of volunteers for the "
                     "summer and the cafe hours change with the tide tables each month.", "title": "Coast notes"}
    yield {"id": UPLOAD_THREAD, "message": "please check the file", "uploads": [UPLOAD_NAME, "photo.png"],
           "query": "inspection rules", "answer": "The inspection is due.", "title": "File check"}
    yield {"id": f"{PREFIX}upload-echo", "message": "the harbor inspection pdf was late again, the harbor inspection "
           "team says the pdf is coming", "uploads": ["harbor.png"], "query": "harbor inspection pdf",
           "answer": "harbor inspection pdf noted", "title": "Port paperwork"}
    yield {"id": TOOL_THREAD, "message": "what do I need for the energy project", "uploads": ["brief.txt"],
           "query": TOOL_ARGUMENT, "answer": "You need three permits.", "title": "Energy project"}
    yield {"id": f"{PREFIX}tool-echo", "message": "tidal charts please", "uploads": ["turbine.txt"], "query": "tide charts",
           "answer": "The turbine permits are filed; tidal data follows.", "title": "Charts"}
    yield {"id": TITLE_THREAD, "message": "let us go over the numbers", "uploads": ["numbers.txt"], "query": "seaweed",
           "answer": "Numbers are up.", "title": TITLE}
    yield {"id": f"{PREFIX}title-echo", "message": "is kelp a farm crop", "uploads": ["crop.txt"], "query": "kelp",
           "answer": "Kelp is farmed.", "title": "Crops"}
    yield {"id": SECRET_THREAD, "message": f"deploy it, my key is {SECRET} thanks", "uploads": ["deploy.txt"],
           "query": "deploy steps", "answer": "Deployed.", "title": "Deploy"}


def run_plan(graph: Any, plan: dict[str, Any], thread_id: str | None = None) -> None:
    """One turn of ``plan``'s thread (or of ``thread_id``), the plan carried by its user message."""
    uploads = [{"filename": name, "size": 100, "path": f"/mnt/user-data/uploads/{name}",
                "extension": name.rsplit(".", 1)[-1]} for name in plan["uploads"]]
    graph.invoke({"messages": [HumanMessage(plan["message"], id=f"{plan['id']}-user")],
                  "uploaded_files": uploads, "thread_data": THREAD_DATA},
                 {"configurable": {"thread_id": thread_id or plan["id"], "plan": plan}})


def write_forked(graph: Any) -> None:
    """A thread titled twice (a turn each), then forked from the end of its first turn: its newest state holds the
    first title, while the newest title write, on the branch left behind, holds the second."""
    first = {"id": FORKED, "message": "forked thread", "uploads": ["fork.txt"], "query": "fork",
             "answer": "first answer", "title": FORKED_TITLES[0]}
    run_plan(graph, first)
    config = {"configurable": {"thread_id": FORKED}}
    end_of_first = graph.get_state(config).config
    run_plan(graph, {**first, "id": f"{FORKED}-2", "message": "second turn", "title": FORKED_TITLES[1]}, FORKED)
    graph.update_state(end_of_first, {"messages": [HumanMessage("a side question", id=f"{FORKED}-side")]},
                       as_node="title")


class Small(TypedDict, total=False):
    question: str
    answer: str
    left: str
    right: str


def write_status_threads(checkpointer: BaseCheckpointSaver) -> None:
    """The status threads (see the module's docstring)."""
    from inspector.demo.langchain_agent import run_langchain_agent

    run_langchain_agent(checkpointer, HITL_THREAD)
    run_langchain_agent(checkpointer, ANSWERED_THREAD, answer_last=True)

    def ask(state: dict) -> dict:
        return {"answer": interrupt({"question": QUESTION, "options": ["north quay", "south quay"]})}

    def fail(state: dict) -> dict:
        raise RuntimeError(ERROR_TEXT)

    def done(state: dict) -> dict:
        return {"answer": "done"}

    for thread, nodes in ((INTERRUPT_THREAD, [("ask", ask)]), (ERROR_THREAD, [("fail", fail)]),
                          (IDLE_THREAD, [("done", done)])):
        with contextlib.suppress(RuntimeError):  # the failing task's error is what the store keeps
            small_graph(nodes, checkpointer).invoke({"question": "go"}, {"configurable": {"thread_id": thread}})


def small_graph(nodes: list[tuple[str, Any]], checkpointer: BaseCheckpointSaver) -> Any:
    """``nodes`` run side by side, each from START to END."""
    graph = StateGraph(Small)
    for name, node in nodes:
        graph.add_node(name, node)
        graph.add_edge(START, name)
        graph.add_edge(name, END)
    return graph.compile(checkpointer=checkpointer)


def run_until_killed(checkpointer: BaseCheckpointSaver, marker: str) -> None:
    """In a process of its own: a step of two tasks, one done (its writes stored), the other running when the
    process is killed (``write_busy``)."""
    import time

    def left(state: dict) -> dict:
        return {"left": "written"}

    def slow(state: dict) -> dict:
        time.sleep(1.0)  # the other task's writes are stored by then
        Path(marker).touch()
        time.sleep(600)
        return {"right": "never"}

    small_graph([("left", left), ("slow", slow)], checkpointer).invoke(
        {"question": "go"}, {"configurable": {"thread_id": BUSY_THREAD}}, durability="sync")


def write_busy(target: str, folder: Path) -> None:
    """``BUSY_THREAD`` in ``target`` (a SQLite file or a PostgreSQL URL), from a process killed mid-step."""
    import subprocess
    import sys
    import time

    marker = folder / "busy-running"
    opener = ("from langgraph.checkpoint.postgres import PostgresSaver as S; saver = S.from_conn_string(target)"
              if "://" in target else
              "import sqlite3; from langgraph.checkpoint.sqlite import SqliteSaver as S; "
              "saver = S(sqlite3.connect(target, check_same_thread=False))")
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); target = {target!r}; {opener}\n"
            "import contextlib\nimport remembered_store as r\n"
            "with (saver if hasattr(saver, '__enter__') and 'postgres' in target else contextlib.nullcontext(saver)) as s:\n"
            f"    r.run_until_killed(s, {str(marker)!r})\n")
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            if child.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the busy thread's process did not reach its step ({child.returncode})")
            time.sleep(0.1)
    finally:
        child.kill()
        child.wait()


def put_plan(graph: Any, plan: dict[str, Any]) -> None:
    """A whole thread stored by one ``update_state`` (an import, a copy): one checkpoint, no writes."""
    uploads = [{"filename": name, "size": 100, "path": f"/mnt/user-data/uploads/{name}"} for name in plan["uploads"]]
    graph.update_state({"configurable": {"thread_id": plan["id"]}}, {
        "messages": [HumanMessage(plan["message"], id=f"{plan['id']}-user"),
                     AIMessage(plan["answer"], id=f"{plan['id']}-ai", tool_calls=[
                         {"name": "web_search", "args": {"query": plan["query"]}, "id": f"{plan['id']}-call",
                          "type": "tool_call"}])],
        "uploaded_files": uploads, "title": plan["title"], "thread_data": THREAD_DATA}, as_node="title")


def write_remembered(checkpointer: BaseCheckpointSaver, count: int = SEARCH_THREADS) -> None:
    """The store (see the module's docstring): the ordinary threads stored whole by ``update_state``, those people
    remember run through the graph."""
    graph = research_graph(checkpointer)
    for plan in plans(count):
        if plan["id"][len(PREFIX):].isdigit():
            put_plan(graph, plan)
        else:
            run_plan(graph, plan)
    write_forked(graph)
    write_status_threads(checkpointer)


def write_sqlite(path: Path, count: int = SEARCH_THREADS) -> Path:
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    try:
        write_remembered(SqliteSaver(conn), count)
    finally:
        conn.close()
    write_busy(str(path), path.parent)
    conn = sqlite3.connect(path)  # what the killed process left in the WAL, into the file
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path


def write_postgres(url: str, folder: Path, count: int = SEARCH_THREADS) -> str:
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
        write_remembered(saver, count)
    write_busy(url, folder)
    return url


def add_thread(checkpointer: BaseCheckpointSaver, thread_id: str, message: str) -> None:
    """One more search thread, written after the index was filled."""
    run_plan(research_graph(checkpointer), {"id": thread_id, "message": message, "uploads": ["late.txt"],
                                            "query": "late", "answer": "late answer", "title": "Late"})
