"""The safe decoder: ext values become data, nothing named in the data is imported or called."""

import sqlite3
import sys

import ormsgpack
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.store import open_store
from inspector.store.checkpoint_blob import decode_checkpoint_blob
from inspector.store.decode import Opaque, decode_typed

SERDE = JsonPlusSerializer()


def _ext(code, *parts):
    return ormsgpack.Ext(code, ormsgpack.packb(parts))


def _checkpoint_blob(channel_values: dict) -> bytes:
    """A checkpoint serialized by LangGraph, with raw channel values spliced in."""
    checkpoint = empty_checkpoint()
    type_, blob = SERDE.dumps_typed(checkpoint)
    header = ormsgpack.unpackb(blob)
    header["channel_values"] = channel_values
    return ormsgpack.packb(header)


@pytest.fixture
def hostile_db(tmp_path):
    """A real SqliteSaver database holding one checkpoint with hostile channel values."""
    db = tmp_path / "hostile.db"
    conn = sqlite3.connect(db)
    SqliteSaver(conn).setup()
    marker = tmp_path / "executed"
    values = {
        "title": "survives",
        "messages": [HumanMessage("hello", id="h1"), AIMessage("hi", id="a1")],
        "ghost": _ext(0, "no_such_module_xyz", "Thing", "arg"),
        "evil": _ext(1, "os", "system", [f"touch {marker}"]),
        "evil_kw": _ext(2, "subprocess", "run", {"args": ["touch", str(marker)]}),
        "evil_method": _ext(3, "builtins", "eval", "__import__('os').system('touch x')", "__call__"),
    }
    # Messages are serialized the way LangGraph does it, so they carry the pydantic ext.
    values["messages"] = ormsgpack.unpackb(SERDE.dumps_typed(values["messages"])[1], ext_hook=lambda c, d: ormsgpack.Ext(c, d))
    blob = _checkpoint_blob(values)
    conn.execute(
        "INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?)",
        ("t", "", "1f000000-0000-6000-8000-000000000001", None, "msgpack", blob, b'{"source":"input","step":-1}'),
    )
    conn.execute(
        "INSERT INTO writes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ("t", "", "1f000000-0000-6000-8000-000000000001", "task", "", 0, "secret", "pickle", b"\x80\x04K\x01."),
    )
    conn.commit()
    conn.close()
    return db, marker


def test_hostile_values_become_problems_and_nothing_runs(hostile_db):
    db, marker = hostile_db
    modules_before = set(sys.modules)
    with open_store(str(db)) as store:
        state = store.state("t")
    assert not marker.exists()
    assert "no_such_module_xyz" not in sys.modules
    assert set(sys.modules) - modules_before <= {m for m in sys.modules if m.startswith("inspector")}
    assert state.values["title"] == "survives"
    assert [m["type"] for m in state.values["messages"]] == ["human", "ai"]
    assert state.values["messages"][0]["content"] == "hello"
    assert state.values["ghost"] == {"__type__": "no_such_module_xyz.Thing", "value": "arg"}
    assert state.values["evil"]["__type__"] == "os.system"
    flagged = {p.field for p in state.problems if p.kind == "foreign-type"}
    assert flagged == {"ghost", "evil", "evil_kw", "evil_method"}
    pickle_problems = [p for p in state.problems if p.field == "secret"]
    assert pickle_problems and "unpickl" in pickle_problems[0].message
    assert isinstance(state.writes[0].value, Opaque)


def test_truncated_blob_keeps_the_fields_before_the_damage():
    blob = _checkpoint_blob({"title": "first", "todos": [{"content": "x" * 500, "status": "pending"}]})
    decoded = decode_checkpoint_blob("msgpack", blob[:-100])
    assert decoded.channel_values["title"] == "first"
    assert "todos" not in decoded.channel_values
    assert any("truncated" in p.message for p in decoded.problems)


def test_pickle_is_never_unpickled(tmp_path):
    marker = tmp_path / "pickled"
    import pickle

    class Boom:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    decoded = decode_typed("pickle", pickle.dumps(Boom()), "f")
    assert not marker.exists()
    assert isinstance(decoded.value, Opaque) and decoded.value.type == "pickle"
    assert decoded.problems[0].field == "f"


def test_encrypted_and_unknown_tags_are_opaque():
    enc = decode_typed("msgpack+aes", b"\x00" * 40, "messages")
    assert isinstance(enc.value, Opaque) and enc.value.size == 40 and enc.value.reason == "encrypted"
    unk = decode_typed("weird", b"abc", "x")
    assert isinstance(unk.value, Opaque) and unk.problems


def test_a_type_tag_is_named_as_ids_are_quoted():
    """A type tag from the store (text that is not UTF-8, a backslash, a quote) reads as every id does."""
    from inspector.store.measure import measure_checkpoint_blob
    from inspector.store.not_utf8 import decode

    tag = decode(b"it's\\\xff")
    spelled = "'it's\\\\xff' (not UTF-8)"
    assert decode_typed(tag, b"abc", "x").problems[0].message == f"unknown serialization type {spelled}"
    assert decode_checkpoint_blob(tag, b"abc").problems[-1].message.endswith(spelled)
    assert measure_checkpoint_blob(tag, b"abc").problems[0].message.endswith(f"stored as {spelled}")
    assert measure_checkpoint_blob(None, b"").problems[0].message.endswith("stored as None")


def test_familiar_langgraph_types_decode_without_warnings():
    import uuid
    from datetime import datetime, timezone

    from langgraph.types import Interrupt

    value = {"when": datetime(2026, 1, 2, tzinfo=timezone.utc), "id": uuid.UUID(int=5), "tags": {"a"},
             "i": Interrupt(value={"question": "which?"}, id="i1")}
    decoded = decode_typed(*SERDE.dumps_typed(value))
    assert decoded.problems == []
    assert decoded.value["when"]["value"].startswith("2026-01-02")
    assert decoded.value["id"]["value"] == str(uuid.UUID(int=5))
    assert decoded.value["i"]["value"]["value"] == {"question": "which?"}


def test_channel_sizes_are_the_serialized_bytes():
    values = {"title": "abc", "artifacts": ["/mnt/user-data/outputs/a.md"]}
    decoded = decode_checkpoint_blob("msgpack", _checkpoint_blob(values))
    assert decoded.channel_bytes == {name: len(ormsgpack.packb(v)) for name, v in values.items()}
