"""What a person sees: images as pictures, the research report rendered, on-disk images shown."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from browser_helpers import shot, wait_for_app

from inspector.store import open_store

pytestmark = pytest.mark.timeout(240)

GALLERY = ".st-key-viewed-images-gallery"
NATURAL_WIDTHS = "els => els.map(e => e.naturalWidth)"


def root_rows(demo_db, thread_id):
    with open_store(str(demo_db)) as store:
        rows = sorted((r for r in store.timeline(thread_id) if r.checkpoint_ns == ""), key=lambda r: r.step)
        held = {r.checkpoint_id: bool(store.state(thread_id, r.checkpoint_id).values.get("viewed_images"))
                for r in rows}
    return rows, held


def open_thread(page, base_url, thread_id, checkpoint_id=None):
    params = {"thread": thread_id, **({"checkpoint": checkpoint_id} if checkpoint_id else {})}
    page.goto(f"{base_url}/thread?{urlencode(params)}")
    wait_for_app(page)


def gallery_widths(page, expected: int) -> list[int]:
    """Natural widths of the gallery's pictures, once ``expected`` of them have finished loading."""
    selector = f"{GALLERY} [data-testid='stImage'] img"
    page.wait_for_function(
        """([selector, expected]) => {
            const imgs = [...document.querySelectorAll(selector)];
            return imgs.length >= expected && imgs.every(i => i.complete);
        }""", arg=[selector, expected], timeout=30_000)
    return page.locator(selector).evaluate_all(NATURAL_WIDTHS)


def test_vision_images_are_pictures_before_clearing_and_gone_after(page, streamlit_app, demo_db):
    rows, held = root_rows(demo_db, "demo-vision")
    last_held = max(i for i, r in enumerate(rows) if held[r.checkpoint_id])
    before, after = rows[last_held], rows[last_held + 1]
    base_url = streamlit_app(f"sqlite:///{demo_db}")

    open_thread(page, base_url, "demo-vision", before.checkpoint_id)
    widths = gallery_widths(page, 2)
    shot(page.locator(GALLERY), "media-vision-before-clearing")
    assert len(widths) == 2 and all(w > 0 for w in widths)

    open_thread(page, base_url, "demo-vision", after.checkpoint_id)
    page.get_by_text("no viewed images").first.wait_for()
    assert page.locator(GALLERY).count() == 0
    assert page.locator(f"{GALLERY} [data-testid='stImage']").count() == 0


def test_research_markdown_artifact_renders(page, streamlit_app, demo_db):
    base_url = streamlit_app(f"sqlite:///{demo_db}")
    open_thread(page, base_url, "demo-research")
    first_heading = next(line for line in (demo_db.parent / "threads/demo-research/user-data/outputs/report.md")
                         .read_text().splitlines() if line.startswith("# "))[2:].strip()
    preview = page.locator(".st-key-artifact-preview")
    preview.wait_for()
    heading = preview.locator("h1", has_text=first_heading)
    heading.wait_for()
    shot(preview, "media-research-report")
    assert heading.is_visible()


def test_current_deerflow_images_from_disk(page, streamlit_app, demo_db):
    base_url = streamlit_app(f"sqlite:///{demo_db}")
    open_thread(page, base_url, "demo-deerflow-current")
    widths = gallery_widths(page, 2)
    shot(page.locator(GALLERY), "media-deerflow-current")
    assert len(widths) == 2 and all(w > 0 for w in widths)
    assert page.locator(GALLERY).get_by_text("file", exact=False).count() >= 2
