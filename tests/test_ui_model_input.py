"""AppTest: the "Model input" panel on the demo: the messages the model ran on, its pictures, the nearest calls."""

from __future__ import annotations

import pytest
from ui_app import all_text, in_page_links, open_page, param

from inspector.diff.writes import step_writes
from inspector.state.model_input import model_input
from inspector.store import open_store

pytestmark = pytest.mark.usefixtures("app_on_demo")
THREAD = "demo-deerflow-current"


@pytest.fixture(scope="module")
def viewed(demo_db):
    """The step whose model call saw the view-image context, and the checkpoints before and after it."""
    with open_store(f"sqlite:///{demo_db}") as store:
        rows = {r.checkpoint_id: r for r in store.timeline(THREAD) if r.checkpoint_ns == ""}
        states = {s.checkpoint_id: s for s in store.iter_states(THREAD)}
    found = []
    for cid in sorted(states):
        parent = states.get(states[cid].parent_checkpoint_id)
        seen = model_input(parent, states[cid], step_writes(parent, rows[cid].source)) if parent else None
        found.append((cid, seen))
    index = next(i for i, (_, seen) in enumerate(found) if seen and seen.transient)
    return found, index


def panel(checkpoint_id):
    at = open_page("thread", thread=THREAD, checkpoint=checkpoint_id)
    at.segmented_control(key="thread_panel").set_value("Model input").run()
    assert not at.exception, at.exception
    return at


def test_the_model_input_shows_every_message_and_the_pictures(viewed):
    found, index = viewed
    cid, seen = found[index]
    at = panel(cid)
    text = all_text(at)
    assert f"called the model on **{len(seen.seen)}** message(s)" in text
    assert "1 put in the state for this call only" in text and "2 inline image(s)" in text
    assert "view-image middleware put it in the state for this model call only" in text
    captions = [img.caption for element in at.get("image") for img in element.proto.imgs]
    assert len(captions) == 2 and all("inline data URL" in c for c in captions), captions
    before = next(c for c, s in reversed(found[:index]) if s)
    after = next(c for c, s in found[index + 1:] if s)
    # the steps are named by the one attribution (the node that ran, what it wrote), not LangGraph's source
    jumps = [label for label in in_page_links(at) if "model call: step" in label]
    assert len(jumps) == 2 and all("agent → messages" in j and "loop" not in j for j in jumps), jumps
    assert "· loop" not in text
    for label, target in (("Previous", before), ("Next", after)):  # each moves the page and its URL there
        jump = panel(cid)
        in_page_links(jump)[next(j for j in jumps if j.startswith(label))].click().run()
        assert param(jump, "checkpoint") == target and param(jump, "panel") == "model-input"


def test_a_step_without_a_model_call_says_so(viewed):
    found, index = viewed
    cid = found[index - 1][0]  # the view-image middleware's own step
    at = panel(cid)
    assert "called no model" in all_text(at) and not at.get("image")
