"""Play in Chromium: from step 0 to the last step at 2 steps/s, a new node highlighted at every step; the
arrow keys and Prev / Next step without losing focus, and the URL names the step."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_helpers import choose_play_speed, shot, wait_for_app
from playwright.sync_api import expect

from inspector.history.attribution import attribute_keys
from inspector.history.lineage import build_history
from inspector.store import open_store

THREAD = "demo-research"
# every frame drawn in the browser (the element naming its step and node), and every step the page wrote into the
# URL (each frame's own write: the browser may draw two frames in one go under load, but writes each URL)
RECORD = """() => { window.__frames = []; window.__urls = []; const seen = new Set();
  for (const name of ['pushState', 'replaceState']) {
    const original = history[name].bind(history);
    history[name] = (state, title, url) => { original(state, title, url);
      window.__urls.push([performance.now(), new URLSearchParams(location.search).get('step')]); };
  }
  new MutationObserver(() => {
    for (const node of document.querySelectorAll('.st-key-play-frame .si-head')) {  // a replaced frame may linger
      const text = node.innerText;
      if (text && !seen.has(text)) { seen.add(text); window.__frames.push(text); }
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true}); }"""
FRAME = re.compile(r"Step (-?\d+) · (.*)", re.S)


@pytest.fixture(scope="module")
def base_url(demo_db, streamlit_app):
    return streamlit_app(db_url=f"sqlite:///{demo_db}")


@pytest.fixture(scope="module")
def steps(demo_db):
    """step -> the nodes that made it (the one attribution), for the thread's only branch."""
    with open_store(f"sqlite:///{demo_db}") as store:
        history = build_history(store.timeline(THREAD))
        made = attribute_keys(store, history, history.ordered)
    return {m.step: list(m.nodes) or [m.what] for m in made.values()}


def step_param(page) -> int | None:
    values = parse_qs(urlsplit(page.url).query).get("step")
    return int(values[-1]) if values else None


def test_play_at_two_steps_a_second_reaches_the_last_step_naming_each_node(page, base_url, steps):
    page.goto(f"{base_url}/thread?thread={THREAD}")
    wait_for_app(page, timeout=120_000)
    choose_play_speed(page, "2 steps/s")
    page.evaluate(RECORD)
    started = time.monotonic()
    page.locator(".st-key-nav_play button:visible").click()
    page.get_by_text("Reached the newest checkpoint of this branch.").wait_for(timeout=240_000)
    elapsed = time.monotonic() - started
    frames, urls = page.evaluate("[window.__frames, window.__urls]")
    shot(page, "play-ended")
    last = max(steps)
    assert step_param(page) == last
    # the steps Play moved to, as each frame wrote them into the URL (repeats of one step dropped)
    moved = [int(step) for _, step in urls if step is not None]
    moved = [step for i, step in enumerate(moved) if i == 0 or step != moved[i - 1]]
    assert moved[0] == 0, "Play starts at step 0, where the input is applied, not at the empty step -1"
    assert moved[-1] == last, "Play reaches the branch's last step"
    gaps = [b - a for a, b in zip(moved, moved[1:])]
    # one step per tick; a tick that comes late on a loaded machine may skip one step to keep the pace, never two
    assert all(gap in (1, 2) for gap in gaps), moved
    assert len(moved) >= 0.6 * (last + 1), f"Play skipped {last + 1 - len(moved)} of {last + 1} steps: {moved}"
    for a, b in zip(moved, moved[1:]):
        assert steps[a] != steps[b], f"steps {a} and {b} follow each other with the same node {steps[a]}"
    # what the browser drew: each frame names its step and that step's node(s) in one element, in order
    shown = [(int(m.group(1)), m.group(2)) for m in map(FRAME.match, frames) if m]
    # the last frame is drawn half a step before Play ends and the page runs whole on that step (asserted above):
    # a browser starved by a loaded machine may draw those two runs in one go, never more
    assert len(shown) == len(frames) and shown[0][0] == 0 and shown[-1][0] in (last - 1, last), frames
    order = [step for step, _ in shown]
    assert order == sorted(order) and set(order) <= set(moved), (order, moved)
    for step, node in shown:
        assert all(name in node for name in steps[step]), (step, node, steps[step])
    for (a, node_a), (b, node_b) in zip(shown, shown[1:]):
        if b in (a + 1, a + 2):  # the highlighted node changes with each step
            assert node_a.split("\n")[0] != node_b.split("\n")[0], f"steps {a} and {b} highlight {node_a!r}"
    # the chosen pace: never faster than 2 steps a second, and (generously, on a loaded machine) not far slower
    assert last / 2 - 1 <= elapsed <= 1.5 * last + 20, f"{last} steps in {elapsed:.1f} s at 2 steps/s"


def _reruns(page) -> list[str]:
    """Every rerun the page asks the server for from now on: the fragment it names ("" for the whole page)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    asked: list[str] = []

    def sent(payload) -> None:
        if isinstance(payload, bytes):
            message = BackMsg()
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "rerun_script":
                asked.append(message.rerun_script.fragment_id)

    page.on("websocket", lambda ws: ws.on("framesent", sent))
    return asked


def test_arrow_keys_and_buttons_step_and_keep_focus(page, base_url, steps):
    reruns = _reruns(page)
    page.goto(f"{base_url}/thread?thread={THREAD}&step=5")
    wait_for_app(page, timeout=120_000)
    opened = len(reruns)
    assert step_param(page) == 5 and page.locator(".st-key-nav_prev").count() == 1
    page.locator(".st-key-nav_next button:visible").click()  # a shortcut button also draws a hidden copy
    page.wait_for_url(re.compile(r"step=6"))
    wait_for_app(page)
    assert "Next" in page.evaluate("document.activeElement.innerText"), "the clicked button keeps the focus"
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"step=5"))
    wait_for_app(page)
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"step=4"))
    wait_for_app(page)
    assert "Next" in page.evaluate("document.activeElement.innerText"), "focus stays where it was"
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"step=5"))
    wait_for_app(page)
    assert step_param(page) == 5
    # each step reran the step's fragment alone: the title, header and sidebar were neither computed nor sent again
    stepped = reruns[opened:]
    assert len(stepped) >= 4 and all(stepped), stepped
    expect(page.get_by_role("heading", name=THREAD)).to_be_visible()


def test_the_model_input_shows_the_transient_images_served_by_the_dashboard(page, base_url, demo_db):
    from inspector.history.attribution import STEP
    from inspector.state.model_input import attributed_input

    thread = "demo-deerflow-current"
    with open_store(f"sqlite:///{demo_db}") as store:
        history = build_history(store.timeline(thread))
        made = attribute_keys(store, history, history.ordered)
        states = {s.checkpoint_id: s for s in store.iter_states(thread)}
    target = next(k for k in reversed(history.ordered) if made[k].made_by == STEP and (seen := attributed_input(
        states.get(states[k[1]].parent_checkpoint_id), states[k[1]], made[k])) is not None and seen.transient)
    page.goto(f"{base_url}/thread?thread={thread}&checkpoint={target[1]}&panel=model-input")
    wait_for_app(page, timeout=120_000)
    images = page.locator(".st-key-model-input [data-testid='stImage'] img")
    expect(images).to_have_count(2, timeout=60_000)  # both drawn (the panel may draw one before the other)
    page.wait_for_function("() => Array.from(document.querySelectorAll("
                           "'.st-key-model-input [data-testid=stImage] img')).every(i => i.complete && i.naturalWidth > 0)")
    for src in images.evaluate_all("els => els.map(e => e.src)"):
        assert src.startswith(base_url), src  # the thumbnails come from the dashboard itself
    shot(page.locator(".st-key-model-input"), "model-input")
