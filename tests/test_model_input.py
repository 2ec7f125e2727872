"""What the model saw at a step: the messages at the step's start, transient image context decoded, what it added."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from inspector.diff.writes import step_writes
from inspector.state.model_input import model_input
from inspector.store import CheckpointState, WriteRecord, open_store


def calls(store, thread_id):
    """``(step, parent, child, model input)`` for every root checkpoint of a thread, parents found by id."""
    rows = {r.checkpoint_id: r for r in store.timeline(thread_id) if r.checkpoint_ns == ""}
    states = {s.checkpoint_id: s for s in store.iter_states(thread_id)}
    out = []
    for cid in sorted(states):
        child = states[cid]
        parent = states.get(child.parent_checkpoint_id)
        writes = step_writes(parent, rows[cid].source) if parent is not None else None
        out.append((rows[cid].step, parent, child, model_input(parent, child, writes)))
    return out


def ids(messages):
    return [m.get("id") for m in messages]


def _ai_written(parent, source):
    writes = step_writes(parent, source) or []
    return [m for w in writes if w.channel == "messages"
            for m in (w.value if isinstance(w.value, list) else [w.value]) if isinstance(m, dict) and m["type"] == "ai"]


@pytest.fixture(scope="module")
def demo_calls(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        yield {tid: calls(store, tid) for tid in ("demo-deerflow-current", "demo-research")}


def test_every_model_call_of_the_demo_shows_the_messages_at_its_start(demo_calls, demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        rows = {r.checkpoint_id: r for r in store.timeline("demo-research")}
    found = 0
    for step, parent, child, seen in demo_calls["demo-research"]:
        written = _ai_written(parent, rows[child.checkpoint_id].source) if parent is not None else []
        assert (seen is not None) == bool(written), step
        if seen is None:
            continue
        found += 1
        assert seen.nodes == ["agent"]
        assert [m.turn.id for m in seen.seen] == ids(parent.values["messages"])
        assert [m.turn.id for m in seen.added] == [m["id"] for m in written]
        assert not seen.transient  # no image was viewed in this thread
    head = demo_calls["demo-research"][-1][2]
    assert found == sum(1 for m in head.values["messages"] if m["type"] == "ai")  # one call per answer kept


def test_the_view_image_context_reaches_the_model_as_pictures(demo_calls):
    with_images = [(step, seen) for step, _, _, seen in demo_calls["demo-deerflow-current"] if seen and seen.transient]
    assert with_images, "the thread's model call after view_image has the transient image context"
    step, seen = with_images[0]
    context = seen.transient[0]
    assert context.turn.id.startswith("view-image-context:") and context.turn.hidden
    assert "view-image middleware" in context.transient
    assert [image.facts.format for image in context.images] == ["PNG", "JPEG"]
    for image in context.images:
        assert not image.problems and image.size == len(image.data)
        with Image.open(io.BytesIO(image.data)) as decoded:
            assert decoded.size == (image.facts.width, image.facts.height)
    # the next model call ran after the context was removed again: it never sees it
    later = [seen for s, _, _, seen in demo_calls["demo-deerflow-current"] if seen and s > step]
    assert later and not any(m.turn.id.startswith("view-image-context:") for m in later[0].seen)


def test_hidden_messages_are_sent_as_stored(demo_calls):
    """The date reminder and memory DeerFlow's UI hides reach the model, with their tags unstripped."""
    first = next(seen for _, _, _, seen in demo_calls["demo-deerflow-current"] if seen)
    hidden = [m for m in first.seen if m.turn.hidden]
    assert len(hidden) == 2
    assert any("<current_date>" in m.turn.text for m in hidden)
    assert any("<current_uploads>" in m.turn.text for m in first.seen if m.turn.type == "human")


def test_deerflow_shaped_threads_in_full_and_delta_mode_agree(deerflow_main_db):
    with open_store(f"sqlite:///{deerflow_main_db}") as store:
        full = [(step, seen) for step, _, _, seen in calls(store, "df-full") if seen]
        delta = [(step, seen) for step, _, _, seen in calls(store, "df-delta") if seen]
    assert [s for s, _ in full] == [s for s, _ in delta] and len(full) >= 10
    for (_, a), (_, b) in zip(full, delta):  # delta mode rebuilds messages from writes: the same input
        assert a.nodes == b.nodes == ["model"]
        assert [m.turn.id.replace("df-full", "") for m in a.seen] == [m.turn.id.replace("df-delta", "") for m in b.seen]
        assert [m.turn.text for m in a.seen] == [m.turn.text for m in b.seen]
    viewed = [seen for _, seen in full if seen.transient]
    assert len(viewed) == 2  # two view_image calls, one model call each sees the pictures
    for seen in viewed:
        assert [img.facts.format for m in seen.transient for img in m.images] == ["PNG"]


def _state(cid, messages, parent=None):
    return CheckpointState("t", "", cid, parent, {"messages": messages}, {}, {}, [], [])


def _write(value, channel="messages"):
    return WriteRecord("task-1", "~__pregel_pull, model", 0, channel, value, "msgpack", 10)


def _png(colour="red", fmt="PNG") -> str:
    out = io.BytesIO()
    Image.new("RGB", (8, 6), colour).save(out, format=fmt)
    return base64.b64encode(out.getvalue()).decode()


def test_broken_inline_images_are_problems_not_errors():
    user = {"type": "human", "id": "u1", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,%%%not-base64"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(b"GIF89a junk").decode()}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + _png(fmt="JPEG")}},
        {"type": "image", "base64": _png(), "mime_type": "image/png"},
        {"type": "image_url", "image_url": {"url": "https://example.invalid/x.png"}},
    ]}
    answer = {"type": "ai", "id": "a1", "content": "seen"}
    seen = model_input(_state("p", [user, "not a message"]), _state("c", [user, "not a message", answer], "p"),
                       [_write([answer])])
    images = seen.seen[0].images
    assert [i.part for i in images] == [0, 1, 2, 3]  # the link is not an inline image
    assert "invalid base64" in images[0].problems[0] and images[0].data is None
    assert images[1].data is None and images[1].problems
    assert images[2].data is not None and images[2].problems == ("declared image/png but the bytes are image/jpeg",)
    assert images[3].data is not None and not images[3].problems and images[3].facts.width == 8
    assert seen.seen[1].turn.type == "unknown"
    assert [m.turn.id for m in seen.added] == ["a1"]


def test_a_step_that_wrote_no_assistant_message_called_no_model():
    user = {"type": "human", "id": "u1", "content": "hi"}
    tool = {"type": "tool", "id": "t1", "content": "42", "tool_call_id": "c1"}
    assert model_input(_state("p", [user]), _state("c", [user, tool], "p"), [_write(tool)]) is None
    assert model_input(_state("p", [user]), _state("c", [user], "p"), None) is None  # update_state: unknown
    assert model_input(None, _state("c", [user]), [_write({"type": "ai", "id": "a"})]) is None


def test_rewritten_and_removed_messages_are_named():
    old = [{"type": "human", "id": "u1", "content": "hi"}, {"type": "ai", "id": "a1", "content": "draft"},
           {"type": "human", "id": "x", "content": "transient"}]
    new = [old[0], {"type": "ai", "id": "a1", "content": "final"}]
    seen = model_input(_state("p", old), _state("c", new, "p"), [_write([new[1]])])
    assert seen.rewritten == ["a1"] and seen.removed == ["x"] and seen.added == []
