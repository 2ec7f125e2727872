"""Diffs between checkpoints of the real demo store, and the ``diff`` command."""

from __future__ import annotations

import json

import pytest

from inspector.cli import main
from inspector.diff import CLEARED_NOTE, diff, diff_checkpoints
from inspector.store import open_store


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(str(demo_db)) as opened:
        yield opened


def root_rows(store, thread_id):
    return sorted((r for r in store.timeline(thread_id) if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)


def adjacent_diffs(store, thread_id):
    for row in root_rows(store, thread_id):
        if row.parent_checkpoint_id:
            yield row, diff_checkpoints(store, thread_id, row.parent_checkpoint_id, row.checkpoint_id)


def test_vision_clear_reads_as_the_empty_dict_rule(store):
    cleared = [d for _, d in adjacent_diffs(store, "demo-vision")
               if d.field("viewed_images") and d.field("viewed_images").note == CLEARED_NOTE]
    assert len(cleared) == 1
    field = cleared[0].field("viewed_images")
    assert {c.kind for c in field.changes} == {"removed"} and len(field.changes) == 2
    assert cleared[0].adjacent
    assert any(w["channel"] == "viewed_images" and w["value"] == {} for w in cleared[0].wrote)


def test_research_duplicate_artifact_is_dropped(store):
    dropped = [d for _, d in adjacent_diffs(store, "demo-research")
               if d.field("artifacts") and any(c.kind == "dropped" for c in d.field("artifacts").changes)]
    assert len(dropped) == 1
    changes = dropped[0].field("artifacts").changes
    assert [c.key for c in changes if c.kind == "dropped"] == ["/mnt/user-data/outputs/report.md"]
    assert [c.key for c in changes if c.kind == "added"] == ["/mnt/user-data/outputs/price_trend.png"]


def test_diff_across_two_fork_branches(store):
    rows = root_rows(store, "demo-time-travel")
    parents = {r.parent_checkpoint_id for r in rows}
    tips = [r for r in rows if r.checkpoint_id not in parents]
    assert len(tips) == 2
    result = diff(store.state("demo-time-travel", tips[0].checkpoint_id),
                  store.state("demo-time-travel", tips[1].checkpoint_id))
    assert not result.adjacent and result.wrote == []
    messages = result.field("messages")
    summaries = " | ".join(c.summary for c in messages.changes)
    # the same AI message id holds different answers on the two branches
    assert [c.kind for c in messages.changes].count("changed") == 1
    assert "shorter" in summaries and "French" in summaries
    assert {f.field for f in result.changed_fields} == {"messages"}


def test_diff_far_apart_checkpoints_accumulates_changes(store):
    rows = root_rows(store, "demo-research")
    result = diff_checkpoints(store, "demo-research", rows[0].checkpoint_id, rows[-1].checkpoint_id)
    assert not result.adjacent
    assert {"messages", "artifacts", "todos", "title"} <= {f.field for f in result.changed_fields}
    assert all(c.kind != "dropped" for c in result.field("artifacts").changes)  # needs the step's writes


def test_diff_command_defaults_to_the_newest_step_that_wrote_a_field_against_its_parent(demo_db, store, capsys):
    rows = root_rows(store, "demo-research")
    newest = rows[-1]
    assert not diff_checkpoints(store, "demo-research", None, newest.checkpoint_id).wrote  # the title was set already
    wrote = next(r for r in reversed(rows) if diff_checkpoints(store, "demo-research", None, r.checkpoint_id).wrote)
    assert main(["diff", "--db", str(demo_db), "demo-research", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["after_id"] == wrote.checkpoint_id and data["before_id"] == wrote.parent_checkpoint_id
    assert data["adjacent"] is True and data["wrote"]
    assert data["note"].startswith(f"The newest checkpoint (step {newest.step} · title · …{newest.checkpoint_id[-12:]}) "
                                   "wrote no field; showing the newest step that did: ")
    assert main(["diff", "--db", str(demo_db), "demo-research", "--to", newest.checkpoint_id, "--json"]) == 0
    named = json.loads(capsys.readouterr().out)  # a --to named is shown as it is
    assert named["after_id"] == newest.checkpoint_id and named["note"] is None and not named["wrote"]


def test_diff_command_text_names_reducers(demo_db, store, capsys):
    row = next(r for r, d in adjacent_diffs(store, "demo-research")
               if d.field("artifacts") and d.field("artifacts").status == "changed" and d.field("artifacts").note)
    assert main(["diff", "--db", str(demo_db), "demo-research", "--to", row.checkpoint_id]) == 0
    out = capsys.readouterr().out
    assert "artifacts (merge_artifacts) changed: 1 duplicate path(s) dropped" in out
    assert "dropped as a duplicate: /mnt/user-data/outputs/report.md" in out
    assert "unchanged:" in out


@pytest.mark.parametrize("args, message", [
    (["--to", "no-such-checkpoint"], "no checkpoint 'no-such-checkpoint'"),
    (["--from", "no-such-checkpoint"], "no checkpoint 'no-such-checkpoint'"),
])
def test_diff_command_bad_ids_exit_2_with_one_line(demo_db, capsys, args, message):
    assert main(["diff", "--db", str(demo_db), "demo-research", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_diff_of_the_first_checkpoint_needs_from(demo_db, store, capsys):
    first = root_rows(store, "demo-vision")[0]
    assert main(["diff", "--db", str(demo_db), "demo-vision", "--to", first.checkpoint_id]) == 2
    assert "has no parent" in capsys.readouterr().err


def test_replay_command_json(demo_db, capsys):
    assert main(["replay", "--db", str(demo_db), "demo-vision", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["matches"] is True
    assert data["steps"][0]["status"] == "first"
    assert {s["status"] for s in data["steps"][1:]} == {"match"}
