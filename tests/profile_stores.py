"""Stores whose threads reach the store in the ways that hide an app from its writes, written once per
session by LangGraph's own graphs and savers, on SQLite (a file not named ``deerflow.db``) and PostgreSQL.

The DeerFlow store (``DEERFLOW_THREADS``): threads over DeerFlow's ``ThreadState`` whose every DeerFlow field
is set by the first ``update_state`` (as DeerFlow's branch, goal and compact APIs, imports, copies and
migrations write them: no write rows for them), then a few more updates; a thread put straight into the
saver; a delta-mode thread (a real ``DeltaChannel`` graph with DeerFlow's metadata marker); a thread holding
only ``messages`` and ``title``; a graph whose fields share DeerFlow's names with other types (plain-string
messages, ``viewed_images`` a list of URLs, ``goal`` a string); and a LangChain ``create_agent`` thread, so
the store mixes apps. Each DeerFlow thread's folders hold its upload, viewed image and artifact.

The apps store (PostgreSQL; SQLite has one store per app in ``fixtures.stores``): deepagents,
langgraph-swarm, langgraph-supervisor and LangChain agent threads, driven by a scripted chat model.
"""

from __future__ import annotations

import io
import operator
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

UPDATED = ("df-update-a", "df-update-b", "df-update-c", "df-update-d")  # every DeerFlow field set by update_state
PUT = "df-put"  # put straight into the saver
DELTA = "df-delta-mode"  # DeerFlow's delta mode: messages a DeltaChannel, the metadata marker
BARE = "df-bare"  # only messages and title: no evidence of its own
ALIKE = "names-alike"  # DeerFlow's field names, other types
AGENT = "lc-travel"  # a LangChain create_agent thread
DEERFLOW_THREADS = (*UPDATED, PUT, DELTA)
UP, OUT = "/mnt/user-data/uploads", "/mnt/user-data/outputs"
DEEP, SWARM, SUPERVISOR = "deep-report", "swarm-trip", "supervisor-trip"
ALIKE_STEPS = 11  # root checkpoints of the name-alike thread


@dataclass(frozen=True)
class ProfileStore:
    url: str  # what the inspector opens (read-only role on PostgreSQL)
    data_dir: Path  # holds threads/<id>/user-data/
    admin_url: str = ""  # PostgreSQL: the role that wrote it (for altered copies)


def png(side: int = 8) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (side, side), (200, 80, 40)).save(out, format="PNG")
    return out.getvalue()


def folders(data_dir: Path, thread_id: str) -> dict[str, str]:
    """The thread's user-data folders with its upload, viewed image and artifact on disk; ``thread_data``."""
    root = data_dir / "threads" / thread_id / "user-data"
    for name in ("workspace", "uploads", "outputs"):
        (root / name).mkdir(parents=True, exist_ok=True)
    (root / "uploads" / "sales.csv").write_text("month,amount\nJuly,12\n")
    (root / "uploads" / "chart.png").write_bytes(png())
    (root / "outputs" / "report.md").write_text(f"# Sales ({thread_id})\n")
    return {f"{name}_path": str(root / name) for name in ("workspace", "uploads", "outputs")}


def _model(state: dict) -> dict:
    from langchain_core.messages import AIMessage

    number = len(state["messages"])
    return {"messages": [AIMessage(f"answer {number}", id=f"ai-{number}")]}


def deerflow_graph(checkpointer: Any, schema: type | None = None) -> Any:
    """A graph over DeerFlow's ``ThreadState`` (or ``schema``): one ``model`` node answering."""
    from langgraph.graph import END, START, StateGraph

    from inspector.schema.thread_state import ThreadState

    graph = StateGraph(schema or ThreadState)
    graph.add_node("model", _model)
    graph.add_edge(START, "model")
    graph.add_edge("model", END)
    return graph.compile(checkpointer=checkpointer)


def first_update(data_dir: Path, thread_id: str) -> dict[str, Any]:
    """Every DeerFlow field of a thread, as an import or DeerFlow's own APIs set them in one update."""
    from langchain_core.messages import HumanMessage

    chart = f"{UP}/chart.png"
    return {
        "messages": [HumanMessage("Chart last month's sales.", id=f"{thread_id}-h1", additional_kwargs={
            "files": [{"filename": "sales.csv", "size": 21, "path": f"{UP}/sales.csv", "status": "uploaded"}]})],
        "sandbox": {"sandbox_id": "local"},
        "thread_data": folders(data_dir, thread_id),
        "uploaded_files": [{"filename": "sales.csv", "size": 21, "path": f"{UP}/sales.csv", "extension": ".csv"}],
        "viewed_images": {chart: {"mime_type": "image/png", "size": len(png()),
                                  "actual_path": str(data_dir / "threads" / thread_id / "user-data/uploads/chart.png")}},
        "todos": [{"content": "Load the sales", "status": "completed"},
                  {"content": "Draw the chart", "status": "in_progress"}],
        "title": "Sales chart",
        "artifacts": [f"{OUT}/report.md"],
    }


def write_updated(app: Any, data_dir: Path, thread_id: str) -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    config = {"configurable": {"thread_id": thread_id}}
    app.update_state(config, first_update(data_dir, thread_id), as_node="model")
    app.update_state(config, {"messages": [AIMessage("Here is the chart.", id=f"{thread_id}-a1")]}, as_node="model")
    app.update_state(config, {"todos": [{"content": "Load the sales", "status": "completed"},
                                        {"content": "Draw the chart", "status": "completed"}]}, as_node="model")
    app.update_state(config, {"messages": [HumanMessage("Thanks.", id=f"{thread_id}-h2")],
                              "goal": {"objective": "chart the sales", "status": "done"}}, as_node="model")


def write_put(saver: Any, data_dir: Path, thread_id: str) -> None:
    """Two checkpoints put straight into the saver (a copy, a migration): no write rows at all."""
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.base import empty_checkpoint

    values = {k: v for k, v in first_update(data_dir, thread_id).items()}
    parent = None
    for step, extra in enumerate(({}, {"messages": [*values["messages"], AIMessage("Done.", id=f"{thread_id}-a1")]})):
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {**values, **extra}
        checkpoint["channel_versions"] = {name: step + 1 for name in checkpoint["channel_values"]}
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "", **({"checkpoint_id": parent} if parent else {})}}
        written = saver.put(config, checkpoint, {"source": "update", "step": step, "parents": {}},
                            {name: step + 1 for name in checkpoint["channel_values"]})
        parent = written["configurable"]["checkpoint_id"]


def write_delta(saver: Any, data_dir: Path) -> None:
    from deerflow_main_graph import MODE_KEY, DeltaThreadState
    from langchain_core.messages import HumanMessage

    app = deerflow_graph(saver, DeltaThreadState)
    for turn in range(4):
        values = {"messages": [HumanMessage(f"question {turn}", id=f"{DELTA}-h{turn}")]}
        if turn == 0:
            values.update(sandbox={"sandbox_id": "local"}, thread_data=folders(data_dir, DELTA))
        app.invoke(values, {"configurable": {"thread_id": DELTA}, "metadata": {MODE_KEY: "delta"}})


def write_bare(app: Any) -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    config = {"configurable": {"thread_id": BARE}}
    app.update_state(config, {"messages": [HumanMessage("Hello?", id=f"{BARE}-h1")], "title": "Hello"}, as_node="model")
    app.update_state(config, {"messages": [AIMessage("Hello!", id=f"{BARE}-a1")]}, as_node="model")


# -- another app under DeerFlow's names ---------------------------------------------------------


class NamesAlike(TypedDict, total=False):
    messages: Annotated[list, operator.add]  # plain strings
    viewed_images: Annotated[list, operator.add]  # image URLs
    goal: str
    title: str
    artifacts: Annotated[list, operator.add]


def _plan(state: dict) -> dict:
    turn = len(state.get("messages") or [])
    return {"goal": f"collect pictures, round {turn}", "messages": [f"planning round {turn}"]}


def _fetch(state: dict) -> dict:
    turn = len(state.get("viewed_images") or [])
    return {"viewed_images": [f"https://example.org/cat-{turn}.png"], "messages": ["fetched a picture"]}


def _keep(state: dict) -> dict:
    return {"artifacts": [f"album-{len(state.get('artifacts') or [])}.html"], "messages": ["kept it"]}


def _name(state: dict) -> dict:
    return {"title": "Cat album"}


def names_alike_graph(checkpointer: Any = None) -> Any:
    from langgraph.graph import END, START, StateGraph

    graph = StateGraph(NamesAlike)
    for name, node in (("plan", _plan), ("fetch", _fetch), ("keep", _keep), ("name", _name)):
        graph.add_node(name, node)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "fetch")
    graph.add_edge("fetch", "keep")
    graph.add_edge("keep", "name")
    graph.add_edge("name", END)
    return graph.compile(checkpointer=checkpointer)


def write_alike(saver: Any) -> None:
    app = names_alike_graph(saver)
    config = {"configurable": {"thread_id": ALIKE}}
    app.invoke({"messages": ["find cats"]}, config)
    app.invoke({"messages": ["more cats"]}, config)


# -- the stores -------------------------------------------------------------------------------


def write_deerflow_store(saver: Any, data_dir: Path) -> None:
    """Every thread of the DeerFlow store through ``saver`` (its tables set up by the caller)."""
    from inspector.demo.langchain_agent import run_langchain_agent

    run_langchain_agent(saver, AGENT)  # the oldest thread: the store's newest are DeerFlow's
    write_alike(saver)
    app = deerflow_graph(saver)
    write_bare(app)
    for thread_id in UPDATED:
        write_updated(app, data_dir, thread_id)
    write_put(saver, data_dir, PUT)
    write_delta(saver, data_dir)


def write_apps(saver: Any) -> None:
    """deepagents, swarm and supervisor threads through ``saver``, as ``tests/apps`` writes them to SQLite."""
    from apps import deep_agent, supervisor_agents, swarm_agents
    from langchain_core.messages import HumanMessage

    from inspector.demo.chat_model import ScriptedChatModel

    deep = deep_agent.build_agent(ScriptedChatModel(script=deep_agent.script(DEEP)), saver)
    deep.invoke({"messages": [HumanMessage("Write a short report on LangGraph's savers.", id=f"{DEEP}-user-1")]},
                {"configurable": {"thread_id": DEEP}})
    for module, build, thread_id, turns in (
            (swarm_agents, swarm_agents.build_swarm, SWARM, [("user-1", "A flight and a hotel in Lisbon, please."),
                                                             ("user-2", "When does the flight leave?")]),
            (supervisor_agents, supervisor_agents.build_supervisor, SUPERVISOR,
             [("user-1", "A flight and a hotel in Lisbon, please.")])):
        app = build(ScriptedChatModel(script=module.script(thread_id)), saver)
        for suffix, text in turns:
            app.invoke({"messages": [HumanMessage(text, id=f"{thread_id}-{suffix}")]},
                       {"configurable": {"thread_id": thread_id}})


def sqlite_store(path: Path, write: Callable[[Any], None]) -> Path:
    from langgraph.checkpoint.sqlite import SqliteSaver

    with closing(sqlite3.connect(path, check_same_thread=False)) as conn:
        write(SqliteSaver(conn))
    return path


def postgres_store(postgres_dsn: Any, name: str, write: Callable[[Any], None]) -> tuple[str, str]:
    from fixtures.postgres import written_database
    from langgraph.checkpoint.postgres import PostgresSaver

    def fill(url: str) -> None:
        with PostgresSaver.from_conn_string(url) as saver:
            saver.setup()
            write(saver)

    return written_database(postgres_dsn, name, fill)


@pytest.fixture(scope="session")
def deerflow_sqlite(tmp_path_factory) -> ProfileStore:
    """The DeerFlow store in a SQLite file named ``app-state.db``; its threads' folders beside it."""
    folder = tmp_path_factory.mktemp("profile-sqlite")
    db = sqlite_store(folder / "app-state.db", lambda saver: write_deerflow_store(saver, folder / "data"))
    return ProfileStore(str(db), folder / "data")


@pytest.fixture(scope="session")
def deerflow_postgres(postgres_dsn, tmp_path_factory) -> ProfileStore:
    """The DeerFlow store in a PostgreSQL database of its own, written by ``PostgresSaver``."""
    folder = tmp_path_factory.mktemp("profile-postgres")
    admin, readonly = postgres_store(postgres_dsn, "profile_deerflow",
                                     lambda saver: write_deerflow_store(saver, folder / "data"))
    return ProfileStore(readonly, folder / "data", admin)


@pytest.fixture(scope="session")
def apps_postgres(postgres_dsn, tmp_path_factory) -> ProfileStore:
    """deepagents, swarm, supervisor and LangChain agent threads in one PostgreSQL database."""
    from inspector.demo.langchain_agent import run_langchain_agent

    def write(saver: Any) -> None:
        write_apps(saver)
        run_langchain_agent(saver, AGENT)

    admin, readonly = postgres_store(postgres_dsn, "profile_apps", write)
    return ProfileStore(readonly, tmp_path_factory.mktemp("profile-apps"), admin)
