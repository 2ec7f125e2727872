"""A thread's replay folds ``add_messages`` into what each step adds (on the stored dicts where a step only
adds messages), and gets what the reducer on the whole conversation gives: for any run of writes (new
messages, replacements, removals, ``REMOVE_ALL_MESSAGES``, messages without an id, chunks), replay inside a
thread's memo equals replay without it, and both equal what LangGraph stores."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import messages_from_dict
from langgraph.graph.message import REMOVE_ALL_MESSAGES, add_messages

from inspector.diff.replay import apply_writes, field_difference, remembering_messages
from inspector.schema import DEFAULT_SCHEMA

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
CHECKS = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not os.environ.get("FUZZ_RANDOM"),
                  suppress_health_check=[HealthCheck.too_slow])
IDS = [f"m{n}" for n in range(8)]


def message(kind: str, mid: str | None, content: str) -> dict:
    return {"type": kind, "id": mid, "content": content, "name": None, "additional_kwargs": {},
            "response_metadata": {}}


one_write = st.one_of(
    st.builds(message, st.sampled_from(["human", "ai"]), st.one_of(st.none(), st.sampled_from(IDS)),
              st.text("abc", max_size=3)),
    # a message no other write names: the steps that only add messages
    st.builds(message, st.sampled_from(["human", "ai", "system"]), st.uuids().map(str), st.text("abc", max_size=3)),
    st.builds(message, st.just("remove"), st.sampled_from([*IDS, REMOVE_ALL_MESSAGES]), st.just("")),
    st.builds(message, st.just("AIMessageChunk"), st.sampled_from(IDS), st.text("xy", max_size=2)),
)
steps = st.lists(st.lists(st.one_of(one_write, st.lists(one_write, max_size=3)), min_size=1, max_size=3),
                 min_size=1, max_size=8)


def stored(messages: list) -> list[dict]:
    """The reducer's messages as the saver stores and the decoder gives them back."""
    return [{**m.model_dump()} for m in messages]


def as_written(value):
    """A write as the saver stores it: the message the node returned, serialised (dumped) whole."""
    items = stored(messages_from_dict([{"type": m["type"], "data": m} for m in (value if isinstance(value, list)
                                                                                 else [value])]))
    return items if isinstance(value, list) else items[0]


@CHECKS
@given(st.lists(st.sampled_from(IDS), unique=True, max_size=5), steps)
def test_replay_in_a_thread_equals_the_reducer_on_the_whole_list(start_ids, runs):
    conversation = stored(messages_from_dict([{"type": "human", "data": message("human", i, i)} for i in start_ids]))
    states = []
    for writes in runs:
        try:  # what LangGraph stores after the step: the reducer on the whole list, ids assigned
            after = conversation
            for write in writes:
                after = stored(add_messages(messages_from_dict([{"type": m["type"], "data": m} for m in after]),
                                            messages_from_dict([{"type": m["type"], "data": m}
                                                                for m in (write if isinstance(write, list) else [write])])))
        except ValueError:  # removing an id that is not there: LangGraph fails such a step
            break
        states.append((conversation, writes, after))
        conversation = after
    alone = []
    for parent, writes, _ in states:
        alone.append(apply_writes("messages", parent, [as_written(w) for w in writes], DEFAULT_SCHEMA))
    with remembering_messages():  # where a step only adds messages, on the stored dicts (no conversion)
        together = [apply_writes("messages", parent, [as_written(w) for w in writes], DEFAULT_SCHEMA)
                    for parent, writes, _ in states]
    assert together == alone
    # and both are what LangGraph stored (ids the reducer assigned read as GENERATED_ID)
    assert [field_difference("messages", replayed, after, DEFAULT_SCHEMA)
            for replayed, (_, _, after) in zip(together, states)] == [None] * len(states)
