"""Arbitrary msgpack through the decoder, the size measurer, the diff, the replay reducers and the
redaction: nothing raises but the inspector's own error types (``ReplayError`` for a write a reducer
cannot apply). Example counts are bounded so the suite stays fast (``FUZZ_EXAMPLES`` to raise them)."""

from __future__ import annotations

import contextlib
import os

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.diff import ReplayError, diff, replay_step
from inspector.diff.replay import apply_writes
from inspector.formatting import dumps
from inspector.safety.redaction import Redactor
from inspector.schema import DEFAULT_SCHEMA
from inspector.sizes.health_values import value_flags
from inspector.store import CheckpointState, WriteRecord
from inspector.store.checkpoint_blob import decode_checkpoint_blob
from inspector.store.decode import decode_typed
from inspector.store.measure import measure_checkpoint_blob

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "100"))
# derandomized: the suite explores the same examples on every run (raise FUZZ_EXAMPLES, or set
# FUZZ_RANDOM=1, to look further)
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not os.environ.get("FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow])
TAGS = ["msgpack", "json", "bytes", "bytearray", "null", "empty", "pickle", "msgpack+aes", "strange", None]
CHANNELS = list(DEFAULT_SCHEMA.fields) + ["__start__", "branch:to:agent", "unknown_field"]
MESSAGE_TYPES = ["human", "ai", "tool", "system", "remove", "AIMessageChunk"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**63, max_value=2**64 - 1), st.floats(allow_nan=True),
    st.text(max_size=30), st.binary(max_size=30),
)


def _ext(children):
    """LangGraph's ext shapes: (module, name, payload[, method]) with any code, and junk payloads."""
    shaped = st.tuples(
        st.sampled_from(["langchain_core.messages.ai", "langchain_core.messages.human", "builtins", "os", "uuid",
                         "datetime", "langgraph.types", "pathlib", "collections"]),
        st.sampled_from(["AIMessage", "HumanMessage", "set", "system", "UUID", "datetime", "Send", "Path",
                         "deque", "Interrupt", "Overwrite"]),
        children,
    ).map(lambda t: msgpack.packb(list(t), default=repr, use_bin_type=True))
    return st.builds(msgpack.ExtType, st.integers(min_value=0, max_value=9), st.one_of(shaped, st.binary(max_size=40)))


def _message(children):
    return st.fixed_dictionaries(
        {"type": st.sampled_from(MESSAGE_TYPES), "content": st.one_of(st.text(max_size=20), children)},
        optional={"id": st.one_of(st.none(), st.text(max_size=5)), "tool_calls": children, "name": children,
                  "tool_call_id": children, "additional_kwargs": children},
    )


values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=8), st.integers()), children, max_size=4),
        _ext(children),
        _message(children),
    ),
    max_leaves=20,
)


def packed(value) -> bytes:
    return msgpack.packb(value, use_bin_type=True, strict_types=False, default=repr)


state_values = st.dictionaries(st.sampled_from(CHANNELS), values, max_size=6)


@FUZZ
@given(tag=st.sampled_from(TAGS), data=st.one_of(st.binary(max_size=200), values.map(packed)), field=st.text(max_size=5))
def test_decoding_one_value_never_raises(tag, data, field):
    decoded = decode_typed(tag, data, field)
    dumps(decoded.value)  # and what it returns can be shown
    Redactor()(decoded.value)


@FUZZ
@given(tag=st.sampled_from(TAGS), data=st.one_of(
    st.binary(max_size=300),
    st.fixed_dictionaries({"v": st.integers(0, 5), "id": st.text(max_size=8), "channel_values": state_values,
                           "channel_versions": st.dictionaries(st.text(max_size=6), values, max_size=3)}).map(packed),
    values.map(packed),
))
def test_decoding_and_measuring_a_checkpoint_never_raises(tag, data):
    decoded = decode_checkpoint_blob(tag, data)
    dumps(decoded.channel_values)
    measure_checkpoint_blob(tag, data)


def _decoded(value):
    return decode_typed("msgpack", packed(value)).value


def _state(checkpoint_id, parent, values_, writes, source="loop"):
    return CheckpointState("t", "", checkpoint_id, parent, values_, {}, {"source": source, "step": 1},
                           writes, [], header={"channel_versions": {k: 1 for k in values_}})


writes = st.lists(st.tuples(st.sampled_from(CHANNELS), values), max_size=5)


@FUZZ
@given(before=state_values, after=state_values, written=writes, source=st.sampled_from(["loop", "update", "input", None]))
def test_diff_and_replay_of_arbitrary_states_raise_only_replay_errors(before, after, written, source):
    parent_values = {k: _decoded(v) for k, v in before.items()}
    child_values = {k: _decoded(v) for k, v in after.items()}
    records = [WriteRecord(f"task{i}", "path", i, ch, _decoded(v), "msgpack", 1) for i, (ch, v) in enumerate(written)]
    parent = _state("a", None, parent_values, records)
    child = _state("b", "a", child_values, [], source)
    result = diff(parent, child)
    dumps(result)
    Redactor()(result)
    check = replay_step(parent, child)
    assert check.status in {"match", "mismatch", "unverified", "first"}
    dumps(check)


@FUZZ
@given(channel=st.sampled_from(CHANNELS), current=values, written=st.lists(values, min_size=1, max_size=4))
def test_reducers_on_arbitrary_writes_raise_only_replay_errors(channel, current, written):
    with contextlib.suppress(ReplayError):
        apply_writes(channel, _decoded(current), [_decoded(w) for w in written])


@FUZZ
@given(values_=state_values)
def test_health_lints_on_arbitrary_states_never_raise(values_):
    state = _state("b", "a", {k: _decoded(v) for k, v in values_.items()}, [])
    value_flags(state, [])
