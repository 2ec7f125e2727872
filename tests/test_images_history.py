"""Images over time on the demo threads, and the images/artifacts commands."""

from __future__ import annotations

import json

import pytest

from inspector.cli import main
from inspector.history.field_history import field_history, lineage
from inspector.profiles.deerflow.files.image_history import image_spans
from inspector.profiles.deerflow.files.user_data import thread_user_data
from inspector.profiles.media_report import media_report
from inspector.store import NotFound, open_store

VISION_IMAGES = {"/mnt/user-data/uploads/architecture.png", "/mnt/user-data/uploads/whiteboard.jpg"}


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(str(demo_db)) as opened:
        yield opened


def root_rows(store, thread_id):
    return sorted((r for r in store.timeline(thread_id) if r.checkpoint_ns == ""), key=lambda r: r.step)


def test_field_history_matches_decoding_every_checkpoint(store):
    points = field_history(store, "demo-vision", "viewed_images")
    assert [p.row.step for p in points] == [r.step for r in root_rows(store, "demo-vision")]
    for point in points:
        assert point.value == store.state("demo-vision", point.row.checkpoint_id).values.get("viewed_images")
    assert sum(p.decoded for p in points) < len(points)


def test_field_history_on_a_long_thread_decodes_few_checkpoints(store):
    points = field_history(store, "demo-long", "artifacts")
    assert len(points) > 300 and sum(p.decoded for p in points) < len(points) // 5


def test_lineage_follows_parents_on_a_forked_thread(store):
    rows = store.timeline("demo-time-travel")
    for row in (r for r in rows if r.checkpoint_ns == ""):
        chain = lineage(rows, row.checkpoint_id)
        assert chain[-1] == row and chain[0].parent_checkpoint_id is None
        assert all(b.parent_checkpoint_id == a.checkpoint_id for a, b in zip(chain, chain[1:]))
    with pytest.raises(NotFound):
        lineage(rows, "no-such-checkpoint")


def test_vision_images_appear_then_are_cleared(store):
    spans = image_spans(field_history(store, "demo-vision", "viewed_images"))
    assert {s.path for s in spans} == VISION_IMAGES
    carried = [r for r in root_rows(store, "demo-vision")
               if store.state("demo-vision", r.checkpoint_id).values.get("viewed_images")]
    for span in spans:
        assert span.ended_by == "cleared" and span.checkpoints == len(carried)
        assert span.appeared_step == carried[0].step and span.ended_step == carried[-1].step + 1
        assert span.stored_chars > 0


def test_bloated_images_are_never_cleared(store):
    spans = image_spans(field_history(store, "demo-bloated", "viewed_images"))
    assert len(spans) == 5 and all(s.ended_by is None for s in spans)
    assert sorted(s.appeared_step for s in spans) == [s.appeared_step for s in spans]


def test_report_at_the_step_before_clearing(store):
    before = max((r for r in root_rows(store, "demo-vision")
                  if store.state("demo-vision", r.checkpoint_id).values.get("viewed_images")), key=lambda r: r.step)
    report = media_report(store, "demo-vision", before.checkpoint_id)
    assert {c.key for c in report.images} == VISION_IMAGES
    assert all(c.decoded and c.problems == [] and c.shape == "base64" for c in report.images)
    assert media_report(store, "demo-vision").images == []


def test_current_deerflow_images_come_from_disk(store, demo_dir):
    report = media_report(store, "demo-deerflow-current")
    assert len(report.images) == 2
    for check in report.images:
        assert check.shape == "file" and check.decoded and check.problems == []
        assert check.physical_path.startswith(str(demo_dir))


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_images_json(capsys, demo_db):
    code, out, _ = run(capsys, "images", "--db", str(demo_db), "demo-deerflow-current", "--json")
    data = json.loads(out)
    assert code == 0 and {i["format"] for i in data["images"]} == {"PNG", "JPEG"}
    assert all(i["problems"] == [] for i in data["images"]) and len(data["history"]) == 2


def test_cli_images_table_shows_history(capsys, demo_db):
    code, out, _ = run(capsys, "images", "--db", str(demo_db), "demo-vision")
    assert code == 0 and "0 image(s)" in out and out.count("cleared") == 2


def test_cli_artifacts(capsys, demo_db):
    code, out, _ = run(capsys, "artifacts", "--db", str(demo_db), "demo-research", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["artifacts"]) == 3 and all(a["exists"] for a in data["artifacts"])
    code, out, _ = run(capsys, "artifacts", "--db", str(demo_db), "demo-research")
    assert code == 0 and "report.md" in out and "3 artifact(s)" in out


def test_without_thread_data_the_data_dir_is_used(store, demo_dir, tmp_path):
    import dataclasses

    state = store.state("demo-deerflow-current")
    bare = dataclasses.replace(state, values={k: v for k, v in state.values.items() if k != "thread_data"})
    found, problems = thread_user_data(bare, demo_dir)
    assert problems == [] and found.origin == str(demo_dir / "threads/demo-deerflow-current/user-data")
    assert thread_user_data(bare, tmp_path)[0] is None
    assert "--data-dir" in thread_user_data(bare, tmp_path)[1][0]
    found, _ = thread_user_data(bare, None, store)  # the SQLite store's own folder
    assert found is not None and found.origin.startswith(str(demo_dir))


def test_cli_data_dir_flag(capsys, demo_db, demo_dir):
    code, out, _ = run(capsys, "images", "--db", str(demo_db), "demo-deerflow-current",
                       "--data-dir", str(demo_dir), "--json")
    assert code == 0 and all(i["decoded"] for i in json.loads(out)["images"])


def test_cli_bad_input_is_one_line_and_exit_2(capsys, demo_db):
    for argv in (["images", "--db", str(demo_db), "../etc"],
                 ["artifacts", "--db", str(demo_db), "demo-research", "--checkpoint", "nope"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and out == ""


def test_table_rows_for_the_page(store):
    from inspector.profiles.media_report import artifact_rows, image_rows, span_rows

    report = media_report(store, "demo-deerflow-current")
    rows = image_rows(report.images)
    assert [r["stored as"] for r in rows] == ["file", "file"] and all(r["problems"] == "ok" for r in rows)
    assert {r["pixels"] for r in rows} == {f"{c.width}x{c.height}" for c in report.images}
    spans = span_rows(report.spans)
    assert all(r["ended by"] == "still held" and r["base64 chars"] is None for r in spans)
    [plan] = artifact_rows(report.artifacts)
    assert plan["path"].endswith("plan.md") and plan["on disk"] and plan["first step"] == report.artifacts[0].first_step


def test_a_branch_reads_its_images_from_the_parent_threads_folder(store, demo_dir, capsys, demo_db):
    """demo-branch was taken from an earlier turn, so its files were not copied: its actual_paths point into
    demo-deerflow-current's folder, which is accepted because the branch came from that thread."""
    report = media_report(store, "demo-branch")
    parent_uploads = (demo_dir / "threads/demo-deerflow-current/user-data/uploads").resolve()
    assert report.images and all(c.decoded and not c.problems for c in report.images)
    assert all(str(parent_uploads) in c.physical_path for c in report.images)
    assert [p.thread_id for p in report.user_data.parents] == ["demo-deerflow-current"]
    code, out, _ = run(capsys, "images", "--db", str(demo_db), "demo-branch")
    assert code == 0 and "branched from demo-deerflow-current" in out and "refused" not in out
    # without the branch link the same entries are refused and looked for in the branch's own folder
    state = store.state("demo-branch")
    import dataclasses

    alone = dataclasses.replace(state, metadata={})
    found, _ = thread_user_data(alone, None, None)
    assert found is not None and found.parents == ()
    from inspector.profiles.deerflow.files.viewed_images import check_viewed_images

    checks = check_viewed_images(state.values["viewed_images"], found)
    assert all(any("actual_path refused" in p for p in c.problems) for c in checks)


def test_lifecycle_note_describes_file_references_kept_for_the_threads_life():
    from inspector.profiles.deerflow.files.image_history import ImageSpan, lifecycle_note

    held = ImageSpan("/mnt/user-data/uploads/a.png", 3, "c3", "c9", 7, file_reference=True)
    assert "kept for the thread's life" in lifecycle_note([held])
    inline = ImageSpan("/x.png", 3, "c3", "c9", 7, stored_chars=4)
    ended = ImageSpan("/y.png", 3, "c3", "c4", 2, ended_step=5, ended_by="cleared", file_reference=True)
    assert lifecycle_note([inline, ended]) is None
