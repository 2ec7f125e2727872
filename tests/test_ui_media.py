"""AppTest: the media views plugged into the thread page (gallery, artifacts panel, images over time)."""

from __future__ import annotations

import pytest
from ui_app import all_text, open_page

from inspector.store import open_store

pytestmark = pytest.mark.usefixtures("app_on_demo")


def image_captions(at) -> list[str]:
    return [img.caption for element in at.get("image") for img in element.proto.imgs]


def test_vision_gallery_and_history_before_clearing(demo_db):
    with open_store(str(demo_db)) as store:
        rows = [r for r in store.timeline("demo-vision") if r.checkpoint_ns == ""]
        held = [r for r in rows if store.state("demo-vision", r.checkpoint_id).values.get("viewed_images")]
    at = open_page("thread", thread="demo-vision", checkpoint=held[0].checkpoint_id)
    assert not at.exception, at.exception
    captions = image_captions(at)
    assert any(c.startswith("architecture.png · PNG 640x200") for c in captions)
    assert any(c.startswith("whiteboard.jpg · JPEG 480x320") for c in captions)
    assert sum(c.startswith("step ") for c in captions) == 0  # the history is read only when its panel is open
    at.segmented_control(key="thread_panel").set_value("Images over time").run()
    captions = image_captions(at)
    assert sum(c.startswith("step ") for c in captions) == 2  # the history's thumbnails
    history = [df.value for df in at.dataframe if "ended by" in df.value.columns]
    assert history and set(history[0]["path"]) == {"/mnt/user-data/uploads/architecture.png",
                                                   "/mnt/user-data/uploads/whiteboard.jpg"}


def test_research_artifacts_table_and_markdown_preview():
    at = open_page("thread", thread="demo-research")
    assert not at.exception, at.exception
    tables = [df.value for df in at.dataframe if "on disk" in df.value.columns]
    assert tables and len(tables[0]) == 3 and tables[0]["on disk"].all()
    assert "Preview" in [s.label for s in at.selectbox]
    assert "# " in all_text(at)  # the report's Markdown, passed to st.markdown
    at.segmented_control(key="thread_panel").set_value("Images over time").run()
    firsts = [df.value for df in at.dataframe if "first step" in df.value.columns]
    assert firsts and len(firsts[0]) == 3 and firsts[0]["first step"].notna().all()


def test_choosing_the_csv_artifact_shows_a_table(demo_dir):
    header = (demo_dir / "threads/demo-research/user-data/outputs/comparison.csv").read_text().splitlines()[0]
    at = open_page("thread", thread="demo-research")
    box = next(s for s in at.selectbox if s.label == "Preview")
    at = box.select("/mnt/user-data/outputs/comparison.csv").run()
    assert not at.exception, at.exception
    assert any(list(df.value.columns) == header.split(",") and len(df.value) > 0 for df in at.dataframe)


def with_uploads(store, thread_id: str) -> str:
    """The newest root checkpoint whose ``uploaded_files`` is not empty (a later turn clears it)."""
    rows = [r for r in store.timeline(thread_id) if r.checkpoint_ns == ""]
    return max((r for r in rows if store.state(thread_id, r.checkpoint_id).values.get("uploaded_files")),
               key=lambda r: r.step).checkpoint_id


def test_research_uploads_open_like_artifacts(demo_db, demo_dir):
    notes = (demo_dir / "threads/demo-research/user-data/uploads/field_notes.md").read_text()
    with open_store(str(demo_db)) as store:
        checkpoint = with_uploads(store, "demo-research")
    at = open_page("thread", thread="demo-research", checkpoint=checkpoint)
    assert not at.exception, at.exception
    (uploads,) = [df.value for df in at.dataframe if "file" in df.value.columns and "on disk" in df.value.columns]
    assert list(uploads["file"]) == ["cell_prices.csv", "field_notes.md"] and uploads["on disk"].all()
    box = next(s for s in at.selectbox if s.label == "Preview an uploaded file")
    at = box.select("/mnt/user-data/uploads/field_notes.md").run()
    assert not at.exception, at.exception
    assert notes.splitlines()[0].lstrip("# ") in all_text(at)
    assert any(b.proto.label == "Download" for b in at.get("download_button"))
    # the same file, attached to the user's message: opened on request, the CSV as a table
    at.toggle(key="att-open-0-0").set_value(True).run()
    assert not at.exception, at.exception
    assert any(list(df.value.columns)[:2] == ["chemistry", "year"] for df in at.dataframe)


def test_vision_uploaded_image_previews_as_a_picture(demo_db):
    with open_store(str(demo_db)) as store:
        checkpoint = with_uploads(store, "demo-vision")
    at = open_page("thread", thread="demo-vision", checkpoint=checkpoint)
    assert not at.exception, at.exception
    assert "PNG 640x200" in image_captions(at)  # the upload's preview, beside the gallery's cards
