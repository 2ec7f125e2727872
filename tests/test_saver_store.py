"""The saver adapter: savers named as ``module:attribute`` or ``file.py:attribute``, factories,
context managers and async-only savers, all read through the public API."""

from __future__ import annotations

import textwrap

import pytest

from inspector.store import StoreError, is_saver_spec, open_store
from inspector.store.saver import SAVER_WARNING, SaverStore

SMALL_GRAPH = """
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class State(TypedDict):
    notes: Annotated[list, operator.add]
    title: str


def build(saver):
    graph = StateGraph(State)
    graph.add_node("write", lambda state: {"notes": [f"note {len(state['notes']) + 1}"], "title": "Small"})
    graph.add_edge(START, "write")
    app = graph.compile(checkpointer=saver)
    for thread in ("alpha", "beta"):
        config = {"configurable": {"thread_id": thread}}
        app.invoke({"notes": ["start"]}, config)
        app.invoke({"notes": ["again"]}, config)
    return saver
"""


def saver_file(tmp_path, body: str) -> str:
    path = tmp_path / "my_saver.py"
    path.write_text(SMALL_GRAPH + textwrap.dedent(body))
    return str(path)


def check_small_store(store) -> None:
    assert {t.thread_id for t in store.threads()} == {"alpha", "beta"}
    state = store.state("alpha")
    assert state.values["notes"] == ["start", "note 2", "again", "note 4"]
    assert state.values["title"] == "Small"
    assert len(store.timeline("alpha")) == 6
    assert store.threads(search="bet")[0].thread_id == "beta"


def test_a_saver_instance_in_a_file(tmp_path):
    path = saver_file(tmp_path, "SAVER = build(InMemorySaver())\n")
    with open_store(f"{path}:SAVER") as store:
        assert isinstance(store, SaverStore)
        assert store.read_only is False and store.warning == SAVER_WARNING and "slower" in store.warning
        check_small_store(store)


def test_a_factory_returning_a_context_manager_is_entered_and_closed(tmp_path):
    path = saver_file(tmp_path, """
        import contextlib
        EVENTS = []

        @contextlib.contextmanager
        def checkpointer():
            EVENTS.append("enter")
            yield build(InMemorySaver())
            EVENTS.append("exit")
    """)
    store = open_store(f"{path}:checkpointer")
    check_small_store(store)
    import sys

    module = next(m for m in sys.modules.values() if getattr(m, "__file__", None) == path)
    assert module.EVENTS == ["enter"]
    store.close()
    assert module.EVENTS == ["enter", "exit"]


def test_an_async_only_saver_from_an_async_context_manager(tmp_path):
    """A saver with only the async API, made by an async factory: driven from a private loop."""
    path = saver_file(tmp_path, """
        import contextlib
        from langgraph.checkpoint.base import BaseCheckpointSaver

        class AsyncOnlySaver(BaseCheckpointSaver):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            async def alist(self, config, **kwargs):
                for tup in self.inner.list(config, **kwargs):
                    yield tup

            async def aget_tuple(self, config):
                return self.inner.get_tuple(config)

        @contextlib.asynccontextmanager
        async def checkpointer():
            yield AsyncOnlySaver(build(InMemorySaver()))
    """)
    with open_store(f"{path}:checkpointer") as store:
        check_small_store(store)


def test_a_dotted_module_path():
    with open_store("langgraph.checkpoint.memory:InMemorySaver") as store:
        assert store.threads() == [] and store.count_threads() == 0


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no_such_module_xyz:saver", "cannot import module"),
        ("langgraph.checkpoint.memory:nothing_here", "has no attribute"),
        ("json:dumps", "creating the saver"),
        ("string:ascii_letters", "not a BaseCheckpointSaver"),
    ],
)
def test_bad_specs_give_one_line(spec, message):
    with pytest.raises(StoreError, match=message) as err:
        open_store(spec)
    assert "\n" not in str(err.value)


def test_a_missing_file_and_a_file_that_fails(tmp_path):
    with pytest.raises(StoreError, match="no Python file"):
        open_store(f"{tmp_path}/missing.py:SAVER")
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(StoreError, match="boom"):
        open_store(f"{broken}:SAVER")


def test_saver_specs_are_told_apart_from_paths_and_urls():
    assert is_saver_spec("my_pkg.savers:checkpointer")
    assert is_saver_spec("./deploy/saver.py:make")
    assert not is_saver_spec("/data/checkpoints.db")
    assert not is_saver_spec("file:/data/x.db")
    assert not is_saver_spec("sqlite:///x.db")


class Unwritable:
    """A value a saver with pickle fallback stores, but LangGraph's default serializer cannot write."""

    def __init__(self, n: int) -> None:
        self.n = n


def test_a_value_the_serializer_cannot_write_is_a_problem_on_its_field():
    from langgraph.checkpoint.base import empty_checkpoint
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from inspector.store.decode import Opaque

    saver = InMemorySaver(serde=JsonPlusSerializer(pickle_fallback=True))
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"title": "survives", "odd": Unwritable(1)}
    checkpoint["channel_versions"] = {"title": 1, "odd": 1}
    config = saver.put({"configurable": {"thread_id": "t", "checkpoint_ns": ""}}, checkpoint,
                       {"source": "input", "step": -1}, {"title": 1, "odd": 1})
    saver.put_writes(config, [("odd", Unwritable(2)), ("title", "next")], "task-1")
    with SaverStore(saver, "memory") as store:
        assert [t.thread_id for t in store.threads()] == ["t"]
        assert store.timeline("t")[0].write_channels == ("odd", "title")
        state = store.state("t")
        assert state.values["title"] == "survives"
        assert state.values["odd"]["__opaque__"] == "Unwritable"
        assert {p.field for p in state.problems} >= {"odd"}
        assert [w.channel for w in state.writes] == ["odd", "title"]
        assert isinstance(state.writes[0].value, Opaque) and state.writes[1].value == "next"
        assert store.field_sizes("t")[0].channels["title"].bytes > 0
