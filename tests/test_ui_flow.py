"""AppTest: the flow on the thread page — steps named by their tasks, the last write of every field, the
flow grid, the graph and the step timeline panels, on the demo store and on a real graph's flow thread."""

from __future__ import annotations

import pytest
from ui_app import open_page

from inspector.history.lineage import build_history
from inspector.store import open_store


def link_labels(at) -> list[str]:
    return [el.proto.label for el in at.get("page_link")]


@pytest.fixture(scope="module")
def vision(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        return build_history(store.timeline("demo-vision"))


@pytest.mark.usefixtures("app_on_demo")
def test_every_field_says_when_and_by_whom_it_was_last_written(vision):
    head = vision.head
    at = open_page("thread", thread="demo-vision", checkpoint=head[1])
    assert not at.exception
    labels = link_labels(at)
    assert "last written at step 7 by view\\_image\\_middleware" in labels or \
        "last written at step 7 by view_image_middleware" in labels, labels
    assert any(label.startswith("last written at step 16 by agent") for label in labels)
    assert any(label.startswith("last written at step 9 by title") for label in labels)


@pytest.mark.usefixtures("app_on_demo")
def test_the_selected_steps_own_write_says_this_step(vision):
    seven = next(k for k in vision.ordered if k[0] == "" and vision.node(k).row.step == 7)
    at = open_page("thread", thread="demo-vision", checkpoint=seven[1])
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any("last written at step 7 by view" in c and "this step" in c for c in captions), captions
