"""A thread that holds fake credentials everywhere a value can sit, written by a real LangGraph graph.

The secrets are fake but shaped like real ones; ``SECRETS`` lists every one, and
``KEPT`` the surrounding words that must still be shown.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from inspector.schema.thread_state import ThreadState

THREAD = "secret-thread"
OPENAI_KEY = "sk-proj-T3stFakeKey0123456789abcdefGHIJKLmnop"
ANTHROPIC_KEY = "sk-ant-api03-FakeFakeFake0123456789_abcdefghijklmnop"
GITHUB_TOKEN = "ghp_Fake0123456789abcdefghijABCDEFGHIJ01"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlLXVzZXIifQ.c2lnbmF0dXJlLWZha2UtMDEyMzQ1Njc4OQ"
DB_PASSWORD = "Hunter2-fake-pw"
PLAIN_SECRET = "opensesame-fake-77"  # shaped like nothing: masked only because of the key naming it
SECRETS = (OPENAI_KEY, ANTHROPIC_KEY, GITHUB_TOKEN, JWT, DB_PASSWORD, PLAIN_SECRET)
KEPT = ("Please deploy with this key", "then tell me when it is live", "Deploying now")
TITLE = f"Deploy with {OPENAI_KEY}"


def _ask(state: dict) -> dict:
    return {
        "messages": [HumanMessage(
            f"Please deploy with this key {OPENAI_KEY} and then tell me when it is live. "
            f"The database is postgresql://admin:{DB_PASSWORD}@db.internal:5432/app.",
            id="h1",
        )],
        "title": TITLE,
        "todos": [{"content": f"rotate {GITHUB_TOKEN}", "status": "in_progress"}],
    }


def _agent(state: dict) -> dict:
    return {"messages": [AIMessage(
        "Deploying now.", id="a1",
        tool_calls=[{"id": "call-1", "name": "deploy", "args": {"api_key": PLAIN_SECRET, "region": "eu-west-1",
                                                                "headers": {"Authorization": f"Bearer {JWT}"}}}],
    )]}


def _tool(state: dict) -> dict:
    return {
        "messages": [ToolMessage(f"deployed; ANTHROPIC_API_KEY={ANTHROPIC_KEY} saved", tool_call_id="call-1",
                                 id="t1", name="deploy")],
        "artifacts": ["/mnt/user-data/outputs/deploy-log.md"],
    }


def build_graph(checkpointer: BaseCheckpointSaver):
    graph = StateGraph(ThreadState)
    graph.add_node("ask", _ask)
    graph.add_node("agent", _agent)
    graph.add_node("tool", _tool)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", "agent")
    graph.add_edge("agent", "tool")
    graph.add_edge("tool", END)
    return graph.compile(checkpointer=checkpointer)


def run_secret_thread(checkpointer: BaseCheckpointSaver) -> None:
    """One run; the run's config carries a secret too (LangGraph copies it into checkpoint metadata)."""
    config = {"configurable": {"thread_id": THREAD, "api_key": PLAIN_SECRET, "user": "support-demo"}}
    build_graph(checkpointer).invoke({"messages": []}, config)


def write_secret_store(path: Path) -> Path:
    with SqliteSaver.from_conn_string(str(path)) as saver:
        run_secret_thread(saver)
    return path


REPO_ROOT = Path(__file__).resolve().parent.parent
ARTIFACT_TEXT = "# Deploy log\n\nDB_PASSWORD={pw}\nAll services are up.\n"


def write_secret_folder(folder: Path) -> Path:
    """The secret store in ``folder``, next to the thread's user-data folder holding an artifact with a password."""
    db = write_secret_store(folder / "secrets.db")
    outputs = folder / "threads" / THREAD / "user-data" / "outputs"
    outputs.mkdir(parents=True)
    (outputs / "deploy-log.md").write_text(ARTIFACT_TEXT.format(pw=SECRETS[-2]))
    return db


def leaked(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("INSPECTOR_")}
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True, cwd=REPO_ROOT,
                          env={**environ, **env}, timeout=120)


def checkpoint_ids(db: Path) -> list[str]:
    out = cli("timeline", "--db", str(db), THREAD, "--json")
    return [c["checkpoint_id"] for c in json.loads(out.stdout)["checkpoints"]]
