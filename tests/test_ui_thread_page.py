"""AppTest: the thread page on the demo store — every demo thread, selecting
checkpoints, deep links, bad links, and a failing panel kept to itself."""

from __future__ import annotations

import json
import re

import pytest
from ui_app import (
    all_text,
    every_node,
    html_shown,
    html_text,
    in_page_links,
    messages_drawn,
    native_control,
    open_page,
    pick,
    shown,
)

from inspector.demo import DEMO_THREADS
from inspector.history.attribution import attribute_keys
from inspector.history.checkpoint_kinds import step_label
from inspector.history.lineage import build_history
from inspector.store import open_store
from inspector.ui import panels
from inspector.ui.inert import plain

pytestmark = pytest.mark.usefixtures("app_on_demo")


@pytest.fixture(scope="module")
def histories(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        yield {t: build_history(store.timeline(t)) for t in DEMO_THREADS}


@pytest.fixture(scope="module")
def named(demo_db, histories):
    """thread -> key -> the step as the one attribution names it (from the stored writes), as the tree does."""
    with open_store(f"sqlite:///{demo_db}") as store:
        return {t: {k: plain(f"step {step_label(h, k, m)}") for k, m in attribute_keys(store, h, h.ordered).items()}
                for t, h in histories.items()}


def tree(at) -> dict | None:
    """The history tree's data as the page sends it (``history_tree``), None when the page draws none."""
    return native_control(at, "tree")


def selected_step(at) -> str:
    """The label the branch slider shows for the selected checkpoint."""
    slider = native_control(at, "nav_slider")
    return slider["labels"][slider["index"]]


@pytest.mark.parametrize("thread_id", sorted(DEMO_THREADS))
def test_every_demo_thread_opens_with_tree_table_and_state(thread_id, histories):
    at = open_page("thread", thread=thread_id)
    assert not at.exception, at.exception
    text = all_text(at)
    history = histories[thread_id]
    assert f"{len(history)} checkpoint(s)" in text
    assert "branch(es)" not in text  # lanes of the drawing are not branches
    assert (f"{len(history.forks)} fork(s)" in text) == bool(history.forks)
    drawn = tree(at)
    assert len(drawn["points"]) == min(len(history), 40) and sum(p["selected"] for p in drawn["points"]) == 1
    assert "`messages`" in text
    assert not at.error


def test_url_names_the_checkpoint_on_screen(histories):
    history = histories["demo-research"]
    at = open_page("thread", thread="demo-research")
    assert _param(at, "checkpoint") == history.head[1]
    assert _param(at, "ns") is None


def test_namespace_without_checkpoint_opens_its_newest(histories):
    history = histories["demo-subgraph"]
    ns = next(k[0] for k in history.ordered if k[0])
    at = open_page("thread", thread="demo-subgraph", ns=ns)
    assert not at.exception and not at.main.warning
    newest = next(k for k in history.ordered if k[0] == ns)
    assert (_param(at, "ns"), _param(at, "checkpoint")) == newest


def test_unknown_fields_are_shown_as_json():
    at = open_page("thread", thread="demo-subgraph")  # a generic LangGraph app with a field of its own
    text = all_text(at)
    assert "**`search_log`**" in text and "not in the schema" in text
    assert any(json.loads(j.value) == ["EU Batteries Regulation 2025 obligations"] for j in at.json)


def test_deerflow_fields_name_their_reducers_and_state_downloads():
    at = open_page("thread", thread="demo-deerflow-current")  # its goal was cleared by the last put
    text = all_text(at)
    for name, reducer in (("promoted", "merge_promoted"), ("summary_text", "replace"),
                          ("delegations", "merge_delegations"), ("skill_context", "merge_skill_context")):
        line = next(line for line in text.splitlines() if line.startswith(f"**`{name}`**"))
        assert line.endswith(f"reducer {reducer}")
    assert at.get("download_button")


def test_research_thread_shows_conversation_and_todo_board():
    at = open_page("thread", thread="demo-research")
    text = all_text(at)
    drawn = messages_drawn(at)
    assert any("assistant · #" in m for m in drawn) and any("user · #" in m for m in drawn)
    assert "**Completed**" in text and "**In progress**" in text
    # a call's arguments and result behind a click: an expander, or a <details> in a bubble drawn as HTML
    assert "answered by message" in " ".join([e.label for e in at.expander] + html_shown(at, "si-call"))


def test_deep_link_opens_that_checkpoint(histories, named):
    history = histories["demo-research"]
    middle = history.ordered[len(history) // 2]
    at = open_page("thread", thread="demo-research", checkpoint=middle[1])
    assert not at.exception
    assert selected_step(at) == named["demo-research"][middle] != f"step {history.node(middle).row.step} · loop"
    assert "→" in selected_step(at)  # the node that ran and the fields it wrote, not LangGraph's source
    assert at.query_params["checkpoint"] == [middle[1]] or at.query_params["checkpoint"] == middle[1]


def test_deep_link_into_a_subgraph_namespace(histories, named):
    history = histories["demo-subgraph"]
    key = next(k for k in history.ordered if k[0].count("|") == 1)
    at = open_page("thread", thread="demo-subgraph", checkpoint=key[1], ns=key[0])
    assert not at.exception
    assert not at.main.warning
    assert selected_step(at) == named["demo-subgraph"][key]


def test_the_slider_names_every_step_as_the_tree_does(histories, named):
    history = histories["demo-vision"]
    at = open_page("thread", thread="demo-vision")
    path = history.path_through(history.head)
    options = native_control(at, "nav_slider")["labels"]
    assert options == [named["demo-vision"][k] for k in path]
    labels = {p["id"]: p["label"] for p in tree(at)["points"]}
    assert all(options[i] == plain(f"step {labels[k[1]]}") for i, k in enumerate(path) if k[1] in labels)
    assert sum("→" in o for o in options) >= len(path) // 2


def test_previous_and_next_walk_the_branch_and_update_the_url(histories):
    history = histories["demo-research"]
    at = open_page("thread", thread="demo-research")
    at.button(key="nav_prev").click().run()
    assert not at.exception
    parent = history.node(history.head).parent
    assert _param(at, "checkpoint") == parent[1]
    at.button(key="nav_next").click().run()
    assert _param(at, "checkpoint") == history.head[1]


def test_slider_selects_a_checkpoint(histories):
    history = histories["demo-time-travel"]
    at = open_page("thread", thread="demo-time-travel")
    path = history.path_through(history.head)
    pick(at, "nav_slider", 0)
    assert not at.exception
    assert _param(at, "checkpoint") == path[0][1]
    assert selected_step(at).startswith("step -1")


def test_a_click_on_a_row_of_the_tree_selects_its_checkpoint_on_either_branch(histories):
    history = histories["demo-time-travel"]
    at = open_page("thread", thread="demo-time-travel")
    points = tree(at)["points"]
    assert [p["id"] for p in points] == [k[1] for k in history.ordered]  # newest first, both branches
    other = history.branches[1].head
    pick(at, "tree", [p["id"] for p in points].index(other[1]))
    assert not at.exception
    assert _param(at, "checkpoint") == other[1]
    drawn = tree(at)
    assert [p["id"] for p in drawn["points"] if p["selected"]] == [other[1]]
    assert {b["text"] for b in drawn["labels"]} == {"main", "fork at step 6"}


def play_settings(at) -> str:
    """The label of the popover beside Play that holds its speed and view."""
    (label,) = [node.proto.popover.label for node in every_node(at._tree)
                if getattr(node, "type", None) == "popover" and "Play" in node.proto.popover.help]
    return label


def test_play_s_speed_and_view_sit_in_a_popover_that_says_what_is_chosen():
    at = open_page("thread", thread="demo-research")
    assert play_settings(at) == "1 step/s · the diff"
    at.segmented_control(key="play_speed").set_value("4 steps/s").run()
    at.segmented_control(key="play_show").set_value("The graph").run()
    assert not at.exception
    assert play_settings(at) == "4 steps/s · the graph"
    at.button(key="nav_prev").click().run()  # kept from step to step
    assert play_settings(at) == "4 steps/s · the graph"


def test_unknown_checkpoint_gives_message_and_ways_back():
    at = open_page("thread", thread="demo-research", checkpoint="not-a-checkpoint")
    assert not at.exception
    assert any("not-a-checkpoint" in w.value for w in at.warning)
    labels = [link.proto.label for link in at.get("page_link")]
    assert "Show the newest checkpoint" in in_page_links(at) and "Back to the thread list" in labels


def test_unknown_namespace_names_the_namespace_not_a_none_checkpoint():
    at = open_page("thread", thread="demo-research", ns="garbage||zz")
    assert not at.exception, at.exception
    assert [shown(w.value) for w in at.main.warning] == ["Namespace 'garbage||zz' has no checkpoint in this thread."]


def test_unknown_thread_gives_message_and_way_back():
    at = open_page("thread", thread="no-such-thread")
    assert not at.exception
    assert any("no-such-thread" in e.value for e in at.error)
    assert "Back to the thread list" in [link.proto.label for link in at.get("page_link")]


def test_a_thread_id_of_ten_thousand_characters_opens_itself_not_its_prefix(tmp_path, app_on_store):
    """LangGraph bounds no id: a 10,000-character thread id opens from its link, and never the thread whose id is
    that link's first 512 characters (an attacker's, perhaps); nor does ``" padded\\n"`` open ``padded``."""
    import sqlite3

    from growth_store import build_graph
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    from inspector.history.location import url_id

    long_id, padded = "L" * 10_000, " padded\n"
    ids = (long_id, long_id[:512], padded, padded.strip())
    path = tmp_path / "long-ids.db"
    with sqlite3.connect(path, check_same_thread=False) as conn:
        graph = build_graph(SqliteSaver(conn))
        for thread_id in ids:
            graph.invoke({"messages": [HumanMessage("hello")]}, {"configurable": {"thread_id": thread_id}})
    with open_store(str(path)) as store:
        newest = {t: store.timeline(t)[0].checkpoint_id for t in ids}
    app_on_store(f"sqlite:///{path}")
    at = open_page("thread", thread=url_id(long_id))
    assert not at.exception and not at.error, [e.value[:200] for e in at.error]
    assert at.query_params["thread"] == long_id and at.query_params["checkpoint"] == newest[long_id]
    # an id with spaces at its ends opens itself too, never the id a stripped link would name
    at = open_page("thread", thread=url_id(padded))
    assert not at.exception and not at.error, [e.value[:200] for e in at.error]
    assert at.query_params["checkpoint"] == newest[padded]


def test_no_thread_in_the_url():
    at = open_page("thread")
    assert not at.exception
    assert any("No thread selected" in e.value for e in at.error)


def test_interrupted_thread_shows_its_pending_question():
    at = open_page("thread", thread="demo-interrupt")
    text = all_text(at)
    assert "Waiting for the user's answer" in text
    assert any(i.value.endswith("?") for i in at.info)


def test_a_failing_panel_shows_an_error_and_the_rest_renders(monkeypatch):
    def broken(store, thread_id, row, state):
        raise RuntimeError("panel exploded")

    monkeypatch.setattr(panels, "THREAD_PANELS", [*panels.THREAD_PANELS, ("Broken", broken)])
    at = open_page("thread", thread="demo-research")
    at.segmented_control(key="thread_panel").set_value("Broken").run()
    assert not at.exception
    assert any("panel exploded" in e.value for e in at.error)
    assert tree(at) is not None  # the history beside it renders
    at.segmented_control(key="thread_panel").set_value("State").run()
    assert "`messages`" in all_text(at) and not at.error


def test_the_panels_offered_are_the_declared_ones_on_every_run():
    from inspector.ui import media_views

    declared = ["State", "Diff vs parent", "Flow grid", "Graph", "Step timeline", "Model input", "Images over time",
                "Size"]
    assert [title for title, _ in panels.THREAD_PANELS] == declared
    assert panels.VIEWS["viewed images"] is media_views.viewed_images_view
    at = open_page("thread", thread="demo-bloated")
    for _ in range(2):  # reruns and other sessions add nothing to the table
        assert at.segmented_control(key="thread_panel").options == declared
        at = open_page("thread", thread="demo-bloated").run()
    assert [title for title, _ in panels.THREAD_PANELS] == declared
    assert at.get("image"), "the viewed_images field is drawn as pictures, not as the JSON fallback"


def test_refresh_rereads_the_thread():
    at = open_page("thread", thread="demo-research")
    at.button[[b.label for b in at.button].index("Refresh")].click().run()
    assert not at.exception
    assert _param(at, "thread") == "demo-research"


def _param(at, name):
    value = at.query_params.get(name)
    return value[-1] if isinstance(value, list) else value


def test_play_starts_at_step_zero_with_the_node_that_ran(histories):
    """From the newest checkpoint Play goes to step 0 (the input applied), not the empty step -1, and its frame
    names the node; the URL names the step, and ``?step=`` alone opens it."""
    history = histories["demo-research"]
    path = history.path_through(history.head)
    first = next(k for k in path if history.node(k).row.step == 0)
    at = open_page("thread", thread="demo-research")
    at.button(key="nav_play").click().run(timeout=120)
    assert not at.exception, at.exception
    assert _param(at, "checkpoint") == first[1] and _param(at, "step") == "0"
    frame = html_text(at)  # the frame's words: one element (``frame_html``)
    assert 'data-step="0"' in frame and "<span>2 of " in frame  # the step, where it is on the branch
    assert re.search(r'class="si-node"[^>]*>__start__</span>.*class="si-field">messages<', frame), frame
    assert at.button(key="nav_play").label == "Pause"
    at.button(key="nav_next").click().run(timeout=120)  # Next pauses
    assert _param(at, "step") == "1" and at.button(key="nav_play").label == "Play"
    jump = open_page("thread", thread="demo-research", step="7")
    assert _param(jump, "checkpoint") == next(k for k in path if history.node(k).row.step == 7)[1]
    missing = open_page("thread", thread="demo-research", step="999")
    assert "Step 999 is not on the newest branch of this thread." in all_text(missing)


def test_each_play_frame_view_draws_the_step(histories):
    """A Play frame shows the presenter's choice: the diff (from raw values), the graph as it ran, or what the
    model saw, each for the step on screen."""
    at = open_page("thread", thread="demo-research", step="8")  # agent: a model call
    at.segmented_control(key="play_show").set_value("The graph").run(timeout=120)
    at.button(key="nav_play").click().run(timeout=120)
    assert not at.exception, at.exception
    assert _param(at, "step") == "8" and at.get("graphviz_chart")
    [dot] = [el.proto.spec for el in at.get("graphviz_chart")]
    agent = re.search(r'"agent" \[label="agent\\n×\d+".*class="(n\d+)"', dot).group(1)
    frame = html_text(at)
    assert "Step 8 · " in frame and ">agent</span>" in frame
    assert f"g.node.{agent} >" in frame  # the frame's style lights the step's node in the graph beside it
    at.segmented_control(key="play_show").set_value("What the model saw").run(timeout=120)
    assert not at.exception, at.exception
    assert "The model received" in html_text(at) and at.button(key="nav_play").label == "Pause"
    at.segmented_control(key="play_show").set_value("The diff").run(timeout=120)
    assert not at.exception, at.exception
    assert "What the state became" in html_text(at) and "<b>messages</b>" in html_text(at)


def test_an_unknown_text_field_is_shown_as_text_not_parsed_as_json():
    at = open_page("thread", thread="demo-deerflow-current")
    assert not at.exception, at.exception
    assert any(t.value.startswith("The user") for t in at.text), [t.value for t in at.text]
    assert not any(isinstance(j.value, str) and j.value.startswith("The user") for j in at.json)


def test_branch_threads_are_linked_both_ways(histories):
    """A branch links to the checkpoint it came from; its parent lists it; DeerFlow's own checkpoints are named."""
    origin = histories["demo-branch"].node(histories["demo-branch"].ordered[-1]).row.metadata
    at = open_page("thread", thread="demo-branch")
    assert not at.exception, at.exception
    label = f"Branched from demo-deerflow-current at checkpoint {origin['branch_parent_checkpoint_id']}"
    assert "2 branch copy" in all_text(at) and "1 run finished" in all_text(at)
    in_page_links(at)[label].click().run()  # the page moves, its URL with it
    assert _param(at, "thread") == "demo-deerflow-current"
    assert _param(at, "checkpoint") == origin["branch_parent_checkpoint_id"]
    parent = open_page("thread", thread="demo-deerflow-current", history="table")  # the history as a table
    assert any(text.startswith("demo-branch: from checkpoint ") for text in in_page_links(parent))
    assert "3 goal set" in all_text(parent)  # set, then evaluated twice
    assert "1 goal cleared" in all_text(parent) and "3 run finished" in all_text(parent)
    table = parent.dataframe[0].value  # the newest page: the third run and the evaluator clearing the goal
    assert list(table["kind"][:2]) == ["goal cleared (by goal_evaluator)", "run finished (run 604a4e13: 9 s)"]
    assert set(table["kind"][2:]) >= {""}
    delta = open_page("thread", thread="demo-delta")
    assert "delta mode: deerflow_checkpoint_channel_mode on" in all_text(delta)


def test_conversation_follows_deerflows_ui_until_everything_is_asked_for(demo_db):
    from inspector.state.conversation import conversation

    with open_store(f"sqlite:///{demo_db}") as store:
        turns = conversation(store.state("demo-deerflow-current").values["messages"])
    hidden = sum(1 for t in turns if t.hidden)
    at = open_page("thread", thread="demo-deerflow-current")
    assert hidden == 2 and len(messages_drawn(at)) == len(turns) - hidden
    text = all_text(at)  # escapes resolved: the text as the page shows it
    assert text.count("<current_uploads>") == 1  # only in the note naming what was removed
    assert "removes the <current_uploads> block" in text
    at.toggle(key="msg_everything_messages").set_value(True).run()
    assert not at.exception and len(messages_drawn(at)) == len(turns)
    # shown as stored, as text: in a Streamlit bubble's Markdown, or escaped in a bubble drawn as HTML
    assert (any(shown(m.value).startswith("<current_uploads>") for m in at.markdown)
            or "<p>&lt;current_uploads&gt;" in html_text(at))


def test_a_step_in_the_link_that_is_not_a_number_is_named():
    at = open_page("thread", thread="demo-research", step="abc")
    assert not at.exception, at.exception
    assert any(w.value.startswith("step='abc' in the link is not a step number") for w in at.main.warning)
    assert at.title[0].value == "demo-research"


def test_a_panel_in_the_link_that_is_none_is_named_escaped_and_cut():
    at = open_page("thread", thread="demo-research", panel="\x1b[2J" + "p" * 5_000)
    assert not at.exception, at.exception
    (said,) = [w.value for w in at.main.warning if "is not understood" in w.value]
    assert said.startswith("panel='\\\\x1b\\[2Jppp") and "(5,004 characters) is not understood (the panels are" in said
    assert "\x1b" not in said and "p" * 200 not in said


def test_stepping_keeps_the_drawn_messages_in_place(demo_db):
    """A long conversation draws its newest 20 to 29 messages from a multiple of ten: the next step, adding a
    message, draws the same messages first, in the same places (the browser keeps their elements)."""
    from inspector.state.conversation import conversation
    from inspector.ui.conversation_view import ANCHOR, RECENT, recent_start

    assert [recent_start(n) for n in (0, 20, 29, 30, 39, 40, 888)] == [0, 0, 0, 10, 10, 20, 860]
    assert all(RECENT <= n - recent_start(n) < RECENT + ANCHOR for n in range(RECENT, 2_000))
    with open_store(f"sqlite:///{demo_db}") as store:
        rows = [r for r in store.timeline("demo-long") if r.checkpoint_ns == "" and r.step is not None]
        counts = {r.step: len([t for t in conversation(store.state("demo-long", r.checkpoint_id).values.get(
            "messages", [])) if not t.hidden]) for r in rows}
    step = next(s for s in sorted(counts) if counts.get(s + 1, 0) > counts[s] >= RECENT + ANCHOR
                and recent_start(counts[s]) == recent_start(counts[s + 1]))
    drawn, elements = [], []
    for at_step in (step, step + 1):
        at = open_page("thread", thread="demo-long", step=str(at_step))
        assert not at.exception, at.exception
        assert f"The newest {counts[at_step] - recent_start(counts[at_step])} of {counts[at_step]} messages." \
            in all_text(at)
        drawn.append(messages_drawn(at))
        elements.append([e.proto.body for e in at.get("html") if 'class="si-msg ' in e.proto.body])
    before, after = drawn
    # the same messages in the same places; the newest may change (its call's result has arrived)
    assert all(before) and len(after) > len(before) >= RECENT and after[:len(before) - 1] == before[:-1]
    # drawn as one HTML element per ten messages from the window's start: the step changed the last one only, the
    # browser keeps the others untouched (an element whose HTML is the same is not drawn again)
    assert len(elements[0]) >= 2 and elements[1][:len(elements[0]) - 1] == elements[0][:-1], \
        [len(e) for e in elements]
