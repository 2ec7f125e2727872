"""Play keeps its pace: the step a tick moves to, a window chart whose spec stays the same from frame to frame,
and the frames ahead read by a background thread (on the demo store)."""

from __future__ import annotations

import pytest

from inspector.history.lineage import build_history
from inspector.history.thread_history import ThreadHistory
from inspector.history.tree_chart import tree_chart, tree_data
from inspector.store import open_store
from inspector.ui.chart_data import arrow_datasets, steady
from inspector.ui.play_view import AHEAD, DIFF, WINDOW, next_index, prefetch, read_steps


def test_a_tick_moves_one_step_on_time_and_skips_at_most_one_when_late():
    clock = (100.0, 4, 4.0)  # Play's first tick drew index 4 at t=100 s, at 4 steps/s
    assert next_index(None, 0, 36, 4.0, 0.0) == 1  # no clock yet (the first tick): one step
    assert next_index(clock, 4, 36, 4.0, 100.25) == 5  # on time
    assert next_index(clock, 5, 36, 4.0, 100.45) == 6  # a little late or early: still one step
    assert next_index(clock, 5, 36, 4.0, 100.3) == 6
    assert next_index(clock, 4, 36, 4.0, 100.65) == 6  # more than half a step late: skips one to keep the pace
    assert next_index(clock, 4, 36, 4.0, 130.0) == 6  # far behind: never a run of skipped steps
    assert next_index(clock, 9, 36, 4.0, 100.25) == 10  # ahead of the clock: never stands still
    assert next_index(clock, 34, 36, 4.0, 200.0) == 35  # never past the end
    assert next_index(clock, 4, 36, 1.0, 101.3) == 5  # the clock ran at another speed: one step


@pytest.mark.parametrize("rate", [0.5, 1.0, 2.0])
def test_up_to_two_steps_a_second_no_step_is_skipped_however_late(rate):
    clock = (100.0, 4, rate)
    assert next_index(clock, 4, 36, rate, 160.0) == 5
    assert next_index(clock, 4, 36, rate, 160.0, [1] * 9) == 5


def test_at_four_steps_a_second_a_skip_waits_for_nine_moves_without_one():
    clock = (100.0, 4, 4.0)
    late = 110.0  # far behind the clock
    assert next_index(clock, 4, 36, 4.0, late, [1, 1, 2]) == 5  # a skip among the last nine moves: one step
    assert next_index(clock, 4, 36, 4.0, late, [2]) == 5  # never two in a row
    assert next_index(clock, 4, 36, 4.0, late, [2] + [1] * 8) == 5
    assert next_index(clock, 4, 36, 4.0, late, [2] + [1] * 9) == 6  # the tenth move may skip again
    moves, index, now = [], 0, 100.0
    for _ in range(200):  # a machine twice too slow for 4 steps/s: every tick is late
        now += 0.5
        moved = next_index((100.0, 0, 4.0), index, 10_000, 4.0, now, moves)
        moves, index = [*moves, moved - index][-10:], moved
        assert moves.count(2) <= 1 and max(moves) <= 2
    assert 200 < index <= 220  # one skip in ten at most: 10% more steps than ticks


@pytest.fixture(scope="module")
def research(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        yield store, build_history(store.timeline("demo-research"))


def frame_spec(history, path, index):
    window = path[max(0, index - WINDOW): index + WINDOW + 1]
    return steady(tree_chart(tree_data(history, window, path[index], label_rows=False), rows=2 * WINDOW + 1))


def test_the_window_chart_changes_only_its_data_from_frame_to_frame(research):
    _, history = research
    path = history.path_through(history.head)
    frames = [frame_spec(history, path, i) for i in (0, 3, 12, len(path) - 1)]
    shapes = [{k: v for k, v in spec.items() if k != "datasets"} for spec in frames]
    assert all(shape == shapes[0] for shape in shapes), "the browser updates the chart in place"
    assert all("values" not in layer.get("data", {}) for layer in shapes[0]["layer"])
    for index, spec in zip((0, 3, 12, len(path) - 1), frames):
        points = spec["datasets"]["layer1"]
        assert [p["checkpoint"] for p in points if p["selected"]] == [path[index][1]]
    assert frames[1]["datasets"] != frames[2]["datasets"]
    assert all(isinstance(rows, bytes) for rows in arrow_datasets(frames[2])["datasets"].values())


def test_the_frames_ahead_are_read_off_the_frames_run(research):
    store, _ = research
    thread = ThreadHistory(store, "demo-research")  # keys only, as the thread page lays it out
    history = thread.history
    path = history.path_through(history.head)
    ahead = path[4: 4 + AHEAD]
    assert all(history.node(k).row.keys_only for k in ahead)
    worker = prefetch(store, thread, path, 3, DIFF)
    assert worker is not None
    worker.join(timeout=120)
    assert not worker.is_alive()
    assert not any(history.node(k).row.keys_only for k in ahead), "their rows were read ahead"
    assert prefetch(store, thread, path, len(path) - 1, DIFF) is None  # nothing ahead of the newest step


def unread_branch(store):
    """demo-research read afresh (keys only, nothing read ahead): its history and its newest branch."""
    thread = ThreadHistory(store, "demo-research")
    return thread, thread.history, thread.history.path_through(thread.history.head)


def test_the_step_next_or_prev_leads_to_is_read_ahead_with_its_page(research):
    store, _ = research
    thread, history, path = unread_branch(store)
    page_size = 4
    target = path[9]
    page = history.page(history.page_of(target, page_size), page_size)
    assert target in page and all(history.node(k).row.keys_only for k in page)
    assert read_steps(store, thread, [], page_size) is None  # nothing further on
    worker = read_steps(store, thread, [target], page_size)
    assert worker is not None
    worker.join(timeout=120)
    assert not worker.is_alive()
    assert not any(history.node(k).row.keys_only for k in page), "the step's page of rows was read ahead"
    elsewhere = [k for k in history.ordered if k not in page]
    assert any(history.node(k).row.keys_only for k in elsewhere), "and no more than its page"


def test_a_step_taken_while_the_read_ahead_waits_replaces_the_step_it_reads(research):
    store, _ = research
    thread, history, path = unread_branch(store)
    page_size = 4
    first, second = path[9], path[1]
    pages = [set(history.page(history.page_of(k, page_size), page_size)) for k in (first, second)]
    assert not pages[0] & pages[1] and all(history.node(k).row.keys_only for k in pages[0] | pages[1])
    worker = read_steps(store, thread, [first], page_size)
    assert worker is not None
    assert read_steps(store, thread, [second], page_size) is None  # the reader waiting takes this one instead
    worker.join(timeout=120)
    assert not worker.is_alive()
    assert not any(history.node(k).row.keys_only for k in pages[1]), "the newest step asked for was read"
    assert all(history.node(k).row.keys_only for k in pages[0]), "the step passed over was not"
    again = read_steps(store, thread, [first], page_size)
    assert again is not None  # the reader is gone: the next ask starts one
    again.join(timeout=120)
    assert not any(history.node(k).row.keys_only for k in pages[0])


def test_the_step_read_ahead_is_read_as_a_conversation_with_the_page_s_profile(research):
    from inspector import profiles
    from inspector.state import conversation
    from inspector.ui import data

    store, _ = research
    thread = ThreadHistory(store, "demo-research")
    history = thread.history
    target = history.path_through(history.head)[7]
    row = history.node(target).row
    worker = read_steps(store, thread, [target], 4, conversations=["messages", "no_such_field"])
    worker.join(timeout=120)
    messages = data.state(store, row.thread_id, row.checkpoint_id, row.checkpoint_ns).values["messages"]
    kept = [turns for held, _, turns in conversation._KEPT.values() if held is messages]
    assert len(kept) == 1 and len(kept[0]) == len(messages)
    with profiles.reading(store, "demo-research"):  # the profile the page reads the thread with
        assert conversation.kept_conversation(messages) is kept[0]
    with profiles.reading(store, "demo-research", named="langgraph"):
        assert conversation.kept_conversation(messages) is not kept[0]
