"""Other apps' schemas (LangChain's create_agent, deepagents, langgraph-swarm) are read from the installed
packages, which costs seconds of imports: they are built only when something asks for a reducer or a field
(replay, diff, the state's reducers), once per process, and never for commands that need none."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from fixtures import REPO_ROOT
from ui_app import all_text, open_page

from inspector.diff import UNKNOWN_REDUCER
from inspector.schema.model import DeferredSchema, Schema

# the packages an app's schema is read from; LangGraph's graph package is what reading a schema imports
SCHEMA_MODULES = ("langchain", "langchain_core", "deepagents", "langgraph_swarm", "langgraph.graph")

# a fresh interpreter runs the commands in order and says, after each, which of SCHEMA_MODULES it has loaded
PROBE = """
import contextlib, io, json, sys
from inspector.cli import main
out = []
for command in json.loads(sys.argv[1]):
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(command)
    loaded = sorted(m for m in sys.modules if m in {names!r})
    out.append({{"code": code, "loaded": loaded, "stdout": text.getvalue()}})
print(json.dumps(out))
""".format(names=set(SCHEMA_MODULES))

# (fixture, thread, commands that need no schema, a reducer the app's schema names in ``state --json``)
APPS = {
    "langchain-agent": ("langchain_agent_db", "langchain-travel",
                        [["uploads"], ["artifacts"], ["images"], ["sizes"], ["timeline"]],
                        ("messages", "add_messages")),
    "deepagents": ("deep_agent_db", "deep-report", [["uploads"], ["artifacts"], ["sizes"], ["timeline"]],
                   ("files", "file_data_delta_reducer (DeltaChannel)")),
    "swarm": ("swarm_db", "swarm-trip", [["uploads"], ["artifacts"], ["sizes"], ["timeline"]],
              ("messages", "add_messages")),
}


def probe(commands: list[list[str]]) -> list[dict]:
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(commands)], capture_output=True, text=True,
                         cwd=REPO_ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("app", sorted(APPS))
def test_commands_needing_no_schema_import_no_app_package_and_state_gets_the_apps_reducers(request, app):
    fixture, thread, cheap, (field, reducer) = APPS[app]
    db = str(request.getfixturevalue(fixture))
    commands = [["threads", "--db", db, "--quiet"],
                *([name, "--db", db, thread, "--quiet", *rest] for name, *rest in cheap),
                ["state", "--db", db, thread, "--json", "--quiet"],
                ["replay", "--db", db, thread, "--json", "--quiet"]]
    *light, state, replay = probe(commands)
    for command, ran in zip(commands, light):
        assert ran["code"] == 0 and ran["stdout"], command
        assert ran["loaded"] == [], (command, ran["loaded"])
    # the state's reducers need the schema: it is built, from the app's own package
    assert state["code"] == 0 and "langgraph.graph" in state["loaded"]
    shown = json.loads(state["stdout"])
    assert shown["profile"]["name"] == app and shown["reducers"][field] == reducer
    # the replay in the same process reuses it and knows every root field's reducer
    steps = json.loads(replay["stdout"])
    assert replay["code"] == 0 and steps
    assert UNKNOWN_REDUCER not in replay["stdout"]


def test_a_deferred_schema_is_built_on_first_use_once_and_names_what_it_cannot_read():
    calls = []
    built = Schema("app state", ("messages", "todos"), {"messages": lambda a, b: a + b})

    def build():
        calls.append(1)
        return built

    deferred = DeferredSchema(build, "App")
    assert not deferred.is_built and "built=False" in repr(deferred)
    with pytest.raises(AttributeError):
        getattr(deferred, "_missing")  # noqa: B009 - private names (copy and pickle probes) never build it
    assert calls == []
    assert deferred.fields == ("messages", "todos") and deferred.reducer_name("todos") == "replace"
    assert deferred.name == "app state" and deferred.built() is built and calls == [1]
    # without the app's package every reducer is unknown, under the app's title
    missing = DeferredSchema(lambda: None, "App")
    assert missing.name == "App (reducers unknown)" and missing.fields == () and missing.reducer_name("x") == "unknown"


def test_the_thread_page_of_a_deepagents_thread_names_the_apps_reducers(deep_agent_db, app_on_store):
    app_on_store(f"sqlite:///{deep_agent_db}")
    at = open_page("thread", thread="deep-report")
    assert not at.exception, at.exception
    text = all_text(at)
    assert "Profile: deepagents" in text
    # the delta channels are rebuilt with deepagents' own reducers, named beside each field
    assert "reducer file_data_delta_reducer" in text and "reducer messages_delta_reducer" in text
    assert "reducer replace" in text  # todos


def test_a_diff_on_the_generic_base_names_its_schema_without_loading_langgraphs_graphs(supervisor_db):
    (diff,) = probe([["diff", "--db", str(supervisor_db), "supervisor-trip", "--quiet"]])
    assert diff["code"] == 0 and "schema LangGraph (reducers unknown)" in diff["stdout"]
    assert "messages (unknown) changed" in diff["stdout"] and diff["loaded"] == []


LIST_PAGE = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=120)
at.run()
frame = at.dataframe[0].value
print(json.dumps({"exception": [e.value for e in at.exception], "threads": list(frame["thread"]),
                  "sized": [bool(size == size and size) for size in frame["state size"]],
                  "loaded": sorted(m for m in sys.modules if m in NAMES)}))
""".replace("NAMES", repr(set(SCHEMA_MODULES)))


def test_the_thread_list_measures_an_agents_threads_without_building_its_schema(langchain_agent_db, tmp_path):
    """(Their sizes and flags are shown; the schema drift, which needs the schema's fields, is not listed.)"""
    import os

    env = {**os.environ, "INSPECTOR_DB": f"sqlite:///{langchain_agent_db}", "INSPECTOR_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", LIST_PAGE, str(REPO_ROOT / "app.py")], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["exception"] == [] and sorted(shown["threads"]) == ["langchain-travel", "langchain-travel-answered"]
    assert all(shown["sized"]) and shown["loaded"] == []
