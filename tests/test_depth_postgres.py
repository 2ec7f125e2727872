"""PostgreSQL: a checkpoint whose JSONB metadata nests past the depth bound (planted by SQL; PostgresSaver
would not write it) reads as too deep on its own row, and the store-wide answers go on."""

from __future__ import annotations

import pytest
from conftest import fresh_database, grant_readonly_role
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.graph import START, StateGraph

from inspector.cli import main
from inspector.schema.thread_state import ThreadState
from inspector.store import open_store
from inspector.store.depth import MAX_DEPTH, TOO_DEEP_KEY

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(180)]
DEPTH = 2_000  # past Python's recursion limit for json.loads, within PostgreSQL's own stack limit


@pytest.fixture(scope="module")
def deep_pg(postgres_dsn) -> str:
    database = "inspector_depth"
    admin_dsn = fresh_database(postgres_dsn.admin_dsn, database)
    graph = StateGraph(ThreadState)
    graph.add_node("say", lambda state: {"title": "a title", "messages": [HumanMessage("hi", id="m1")]})
    graph.add_edge(START, "say")
    with PostgresSaver.from_conn_string(admin_dsn) as saver:
        saver.setup()
        for thread in ("pg-deep", "pg-plain"):
            graph.compile(checkpointer=saver).invoke({"messages": []}, {"configurable": {"thread_id": thread}})
        saver.conn.execute("UPDATE checkpoints SET metadata = %s::jsonb WHERE thread_id = 'pg-deep'",
                           ["[" * DEPTH + "]" * DEPTH])
    grant_readonly_role(admin_dsn)
    return f"{postgres_dsn.readonly_dsn.rsplit('/', 1)[0]}/{database}"


def test_deep_jsonb_metadata_is_too_deep_on_its_row(deep_pg):
    with open_store(deep_pg) as store:
        assert {t.thread_id for t in store.threads()} == {"pg-deep", "pg-plain"}
        state = store.state("pg-deep")
        assert state.metadata == {TOO_DEEP_KEY: f"nested deeper than {MAX_DEPTH} levels; not shown"}
        assert state.values["title"] == "a title"
        assert store.state("pg-plain").metadata["step"] == 1


@pytest.mark.parametrize("argv", [["threads"], ["sizes"], ["health"], ["prune-preview", "--keep-latest", "1"],
                                  ["timeline", "pg-deep"], ["state", "pg-deep"], ["bundle", "pg-deep"]])
def test_every_command_goes_on(deep_pg, capsys, tmp_path, argv):
    extra = ["--out", str(tmp_path / "b.zip")] if argv[0] == "bundle" else []
    code = main([*argv, "--db", deep_pg, "--quiet", *extra])
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    assert "RecursionError" not in captured.out + captured.err and "error:" not in captured.err
