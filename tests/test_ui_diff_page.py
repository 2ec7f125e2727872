"""AppTest: the diff page's deep links and the thread page's "Diff vs parent" panel."""

from __future__ import annotations

import pytest
from ui_app import all_text, open_page, param

from inspector.diff import CLEARED_NOTE, diff_checkpoints
from inspector.store import open_store

pytestmark = pytest.mark.usefixtures("app_on_demo")


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(f"sqlite:///{demo_db}") as opened:
        yield opened


def clearing_step(store):
    for row in sorted(store.timeline("demo-vision"), key=lambda r: r.checkpoint_id):
        if row.parent_checkpoint_id and not row.checkpoint_ns:
            field = diff_checkpoints(store, "demo-vision", None, row.checkpoint_id).field("viewed_images")
            if field is not None and field.note == CLEARED_NOTE:
                return row
    pytest.fail("no clearing step")


def test_thread_page_panel_shows_this_checkpoint_against_its_parent(store):
    row = clearing_step(store)
    at = open_page("thread", thread="demo-vision", checkpoint=row.checkpoint_id)
    assert not at.exception, at.exception
    assert "Diff vs parent" in at.segmented_control(key="thread_panel").options
    assert CLEARED_NOTE not in [i.value for i in at.info]  # not computed until the panel is picked
    at.segmented_control(key="thread_panel").set_value("Diff vs parent").run()
    assert CLEARED_NOTE in [i.value for i in at.info]
    assert any(s.value.startswith("**Replay matches** · Replay through the reducers matches the stored state (")
               and "0 unverified, 0 mismatched" in s.value for s in at.success)
    assert "**What the nodes wrote**" in all_text(at)


def test_diff_page_deep_link_across_fork_branches(store):
    rows = [r for r in store.timeline("demo-time-travel") if not r.checkpoint_ns]
    parents = {r.parent_checkpoint_id for r in rows}
    a, b = sorted((r for r in rows if r.checkpoint_id not in parents), key=lambda r: r.checkpoint_id)
    at = open_page("diff", thread="demo-time-travel", **{"from": a.checkpoint_id, "to": b.checkpoint_id})
    assert not at.exception, at.exception
    text = all_text(at)
    assert "not a checkpoint and its parent" in text
    assert "**messages**" in text and "French" in text
    assert not at.success and not at.error  # no replay check between branches
    assert at.query_params["from"] == [a.checkpoint_id] or at.query_params["from"] == a.checkpoint_id


def newest_writing(store, thread_id):
    """The newest step that wrote a field (the one attribution), and the newest checkpoint."""
    from inspector.history.thread_history import ThreadHistory

    thread = ThreadHistory(store, thread_id)
    head = thread.history.head
    return thread.newest_writing(store, head), head[1]


def picked(at) -> dict[str, str]:
    return {s.label: s.value for s in at.selectbox}


def test_diff_page_defaults_to_the_newest_step_that_wrote_something(store):
    wrote, newest = newest_writing(store, "demo-research")
    assert wrote.key[1] != newest  # its last step (the title node) wrote nothing: the case this default is for
    at = open_page("diff", thread="demo-research")
    assert not at.exception, at.exception
    assert [s.label for s in at.selectbox] == ["Thread", "Profile", "From (the earlier checkpoint)",
                                              "To (the later checkpoint)"]
    rows = {r.checkpoint_id: r for r in store.timeline("demo-research")}
    assert picked(at)["Thread"] == "demo-research"
    assert picked(at)["To (the later checkpoint)"] == wrote.key[1]
    assert picked(at)["From (the earlier checkpoint)"] == rows[wrote.key[1]].parent_checkpoint_id
    text = all_text(at)
    assert "(parent → child)" in text and "No field was written in this step" not in text
    assert f"wrote no field; showing the newest step that did: step {wrote.step}" in text
    # a thread whose newest checkpoint wrote something opens on it, with no such line
    wrote, newest = newest_writing(store, "demo-bloated")
    assert wrote.key[1] == newest
    at = open_page("diff", thread="demo-bloated")
    assert picked(at)["To (the later checkpoint)"] == newest and "wrote no field" not in all_text(at)


def test_the_thread_picker_suggests_threads(store):
    """(A typed id is tested in the browser: AppTest sets only listed options.)"""
    at = open_page("diff")
    assert not at.exception, at.exception
    box = at.selectbox(key="diff_thread")
    assert box.value is None and {"demo-research", "demo-vision"} <= {o.split(" · ")[0] for o in box.options}
    assert any(o.startswith("demo-research · ") and "EV battery" in o for o in box.options)  # titles help to pick
    assert "Choose a thread above" in all_text(at)
    assert "Find a thread in the thread list" in [link.proto.label for link in at.get("page_link")]
    at = box.set_value("demo-vision").run()
    assert at.query_params["thread"] in ("demo-vision", ["demo-vision"])
    assert picked(at)["To (the later checkpoint)"] == newest_writing(store, "demo-vision")[0].key[1]
    # another thread drops the first one's checkpoints from the link
    at = at.selectbox(key="diff_thread").set_value("demo-bloated").run()
    assert not at.exception and not at.main.warning
    assert at.query_params["to"] in (newest_writing(store, "demo-bloated")[1], [newest_writing(store, "demo-bloated")[1]])


def test_a_reversed_range_is_swapped_with_a_note(store):
    rows = sorted((r for r in store.timeline("demo-research") if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    late, early = rows[20], rows[5]
    at = open_page("diff", thread="demo-research", **{"from": late.checkpoint_id, "to": early.checkpoint_id})
    assert not at.exception, at.exception
    assert any("is newer than To" in i.value and "swapped" in i.value for i in at.info)
    assert picked(at)["From (the earlier checkpoint)"] == early.checkpoint_id
    assert picked(at)["To (the later checkpoint)"] == late.checkpoint_id
    caption = next(c.value for c in at.caption if "(not a checkpoint and its parent)" in c.value)
    assert caption.index(f"step {early.step} ") < caption.index(f"step {late.step} ")
    # picking a From newer than To in the page swaps them too
    at = at.selectbox(key="diff-from-demo-research-").set_value(rows[30].checkpoint_id).run()
    assert any("From was newer than To: swapped" in i.value for i in at.info)
    assert picked(at)["From (the earlier checkpoint)"] == late.checkpoint_id
    assert picked(at)["To (the later checkpoint)"] == rows[30].checkpoint_id


def test_diff_page_subgraph_namespace(store):
    ns = next(r.checkpoint_ns for r in store.timeline("demo-subgraph") if r.checkpoint_ns)
    at = open_page("diff", thread="demo-subgraph", ns=ns)
    assert not at.exception, at.exception
    assert picked(at)["Namespace"] == ns
    assert any(s.value.startswith("**Replay matches** · Replay through the reducers matches the stored state (")
               and "0 unverified, 0 mismatched" in s.value for s in at.success)


def test_diff_page_unknown_thread_is_an_error_not_an_exception():
    at = open_page("diff", thread="no-such-thread")
    assert not at.exception
    assert any(e.value.startswith("There is no thread 'no-such-thread' in this store.") for e in at.error)
    links = {link.proto.label: link.proto.query_string for link in at.get("page_link")}
    assert links["Find it in the thread list"] == "q=no-such-thread" and "Back to the thread list" in links


def test_a_written_string_is_shown_as_text_not_parsed_as_json(store):
    newest = max((r for r in store.timeline("demo-bloated") if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    at = open_page("diff", thread="demo-bloated", to=newest.checkpoint_id)
    assert not at.exception, at.exception
    assert "Dead-pixel check on five sensor scans" in [t.value for t in at.text]
    assert "title set to 'Dead-pixel check on five sensor scans'" in all_text(at)
    assert "None" not in all_text(at)


def test_unknown_ids_in_a_deep_link_are_named_with_a_way_back(store):
    wrote, _ = newest_writing(store, "demo-research")
    rows = {r.checkpoint_id: r for r in store.timeline("demo-research")}
    at = open_page("diff", thread="demo-research", **{"from": "xx", "to": "yy"})
    assert not at.exception, at.exception
    assert len(at.main.warning) == 1 and "from 'xx', to 'yy'" in at.main.warning[0].value
    links = {link.proto.label: link.proto.query_string for link in at.get("page_link")}
    head = max((r for r in rows.values() if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    assert links["Open the thread"] == f"thread=demo-research&checkpoint={head.checkpoint_id}&step={head.step}"
    assert "Back to the thread list" in links
    assert at.query_params["to"] in (wrote.key[1], [wrote.key[1]])
    parent = rows[wrote.key[1]].parent_checkpoint_id
    assert at.query_params["from"] in (parent, [parent])


def test_a_namespace_the_thread_lacks_is_named():
    at = open_page("diff", thread="demo-subgraph", ns="no-such-ns")
    assert not at.exception, at.exception
    assert any(w.value.startswith("ns='no-such-ns' in the link is not a namespace of thread 'demo-subgraph'")
               for w in at.main.warning)
    assert picked(at)["Namespace"] == ""


def test_a_delta_channel_is_named_by_its_channel_and_fold_on_the_page():
    at = open_page("diff", thread="demo-delta")
    assert not at.exception, at.exception
    text = all_text(at)
    assert "merge_message_writes (DeltaChannel)" in text and "add_messages" not in text


def test_the_pickers_and_the_caption_name_each_step_by_the_one_attribution(store):
    from inspector.history.checkpoint_kinds import step_label
    from inspector.history.thread_history import ThreadHistory

    wrote, _ = newest_writing(store, "demo-research")
    thread = ThreadHistory(store, "demo-research")
    made = thread.attributions(store, [wrote.key])[wrote.key]
    expected = f"step {step_label(thread.history, wrote.key, made)}"
    assert "→" in expected  # a node and the fields it wrote, not the metadata's "loop"
    at = open_page("diff", thread="demo-research")
    assert not at.exception, at.exception
    caption = next(c.value for c in at.caption if "(parent → child)" in c.value)
    assert f"{expected} · …{wrote.key[1][-12:]}" in caption.replace("\\", "")
    to_box = at.selectbox(key="diff-to-demo-research-")
    assert any(option.startswith(expected.split(" →")[0]) and "→" in option for option in to_box.options)


@pytest.mark.parametrize("fixture, reducer, profile", [("deep_agent_db", "messages_delta_reducer", "deepagents"),
                                                       ("swarm_db", "add_messages", "langgraph-swarm")])
def test_another_apps_thread_is_diffed_and_replayed_with_its_own_profile(request, app_on_store, fixture, reducer,
                                                                         profile):
    """The Diff page reads the thread with its profile, as the thread page and the CLI do: a deepagents thread's
    messages are folded by deepagents' reducer (never DeerFlow's merge_message_writes) and a swarm's by its own."""
    db = request.getfixturevalue(fixture)
    with open_store(f"sqlite:///{db}") as opened:
        (thread,) = [t.thread_id for t in opened.threads()]
    app_on_store(f"sqlite:///{db}")
    at = open_page("diff", thread=thread)
    assert not at.exception, at.exception
    text = all_text(at)
    assert f"Profile: {profile}" in text and reducer in text, text
    assert "merge_" not in text and "DeerFlow" not in text



def test_two_runs_of_another_apps_task_are_compared_with_its_profile(tmp_path, app_on_store):
    """Across threads, the first thread's profile reads both (as ``diff --against-thread`` does): two deepagents runs'
    files are folded by deepagents' own reducer, and its profile is named."""
    from apps.deep_agent import write_store

    path = tmp_path / "two-runs.db"
    for thread_id in ("run-1", "run-2"):
        write_store(path, thread_id)
    app_on_store(f"sqlite:///{path}")
    at = open_page("diff", thread="run-1", against="run-2")
    assert not at.exception, at.exception
    text = all_text(at)
    assert "Profile: deepagents" in text and "file_data_delta_reducer (DeltaChannel)" in text and "merge_" not in text, text


def cli_json(capsys, *args) -> dict:
    import json

    from inspector.cli import main

    assert main(["diff", *args, "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("thread_id", ["demo-research", "demo-branch"])
def test_the_diff_pages_defaults_are_the_cli_ones(demo_db, capsys, thread_id):
    """Without from/to: the checkpoints ``diff`` compares, and the same line saying why (demo-branch's newest is its
    run-duration checkpoint, named as the tree names it)."""
    said = cli_json(capsys, "--db", str(demo_db), thread_id)
    at = open_page("diff", thread=thread_id)
    assert not at.exception, at.exception
    assert picked(at)["To (the later checkpoint)"] == said["after_id"]
    assert picked(at)["From (the earlier checkpoint)"] == said["before_id"]
    assert said["note"] and said["note"] in all_text(at)
    if thread_id == "demo-branch":
        assert said["note"].startswith("The newest checkpoint (step 29 · run finished · …")


def test_against_another_thread_the_defaults_are_the_cli_ones_whatever_was_shown_before(demo_db, capsys):
    """Two threads compared from a page that showed one thread's step and its parent: the newest of each, as
    ``diff --against-thread``, with the same fields changed, added and removed."""
    said = cli_json(capsys, "--db", str(demo_db), "demo-branch", "--against-thread", "demo-deerflow-current")
    at = open_page("diff", thread="demo-branch")
    assert param(at, "from") and param(at, "to")  # the single-thread comparison names its checkpoints
    at.text_input[0].set_value("demo-deerflow-current").run()
    assert not at.exception, at.exception
    assert picked(at)["From: a checkpoint of demo-branch"] == said["before_id"]
    assert picked(at)["To: a checkpoint of demo-deerflow-current"] == said["after_id"]
    assert param(at, "from") == said["before_id"] and param(at, "against") == "demo-deerflow-current"
    shown_status = {line.split(" · ")[0].split("**")[1]: line.rsplit(" · ", 1)[1]
                    for line in (m.value for m in at.markdown) if line.startswith(":material/") and " · `" in line}
    assert shown_status == {f["field"]: f["status"] for f in said["fields"] if f["status"] != "unchanged"}


def test_steps_are_named_as_the_tree_names_them(demo_db, capsys):
    """``update_state`` steps and checkpoints written outside a step, named by their kind (as the tree, the table and
    ``timeline`` name them), never ``?`` or ``first`` for want of their metadata."""
    from inspector.cli import main

    at = open_page("diff", thread="demo-time-travel")
    assert not at.exception, at.exception
    options = at.selectbox(key="diff-to-demo-time-travel-").options
    assert not [o for o in options if " · ? · " in o or " · first · " in o], options
    assert main(["timeline", "--db", str(demo_db), "demo-time-travel", "--json", "--quiet"]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)["checkpoints"]
    put = next(r for r in rows if (r.get("kind") or "").startswith("put"))
    assert any(o.startswith(f"step {put['step']} · put · …{put['checkpoint_id'][-12:]}") for o in options), options
