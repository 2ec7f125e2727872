"""AppTest: a support bundle opened by the dashboard (every page), from the sidebar, and the export button."""

from __future__ import annotations

import pytest
from bundle_helpers import CASE, write_support_case
from ui_app import all_text, open_page

from inspector.bundle import write_bundle
from inspector.settings import Settings
from inspector.store import open_store


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ui-bundle")
    write_support_case(folder / "store.db", folder)
    out = tmp_path_factory.mktemp("desk") / "case.zip"
    with open_store(str(folder / "store.db")) as store:
        write_bundle(store, CASE, out, settings=Settings())
    return out


def test_every_page_works_on_a_bundle(bundle, app_on_store):
    app_on_store(str(bundle))
    at = open_page("threads")
    assert not at.exception and list(at.dataframe[0].value["thread"]) == [CASE]
    assert any(w.value.startswith("A support bundle, read from a private copy.") for w in at.sidebar.warning)
    at = open_page("thread", thread=CASE)
    assert not at.exception and not at.error, at.exception
    captions = [img.caption for element in at.get("image") for img in element.proto.imgs]
    # pictures read from the bundle: the gallery, then the images-over-time strip in its panel
    assert {c.split(" · ")[0] for c in captions if " · " in c} == {"chart.png", "board.jpg"}
    assert not at.main.warning, [w.value for w in at.main.warning]  # no missing or refused file
    assert "notes.md" in all_text(at)
    at.segmented_control(key="thread_panel").set_value("Images over time").run()
    assert not at.exception and not at.main.warning, [w.value for w in at.main.warning]
    captions = [img.caption for element in at.get("image") for img in element.proto.imgs]
    assert {c for c in captions if c.startswith("step")} == {"step 5: chart.png", "step 5: board.jpg"}
    for page, params in (("diff", {"thread": CASE}), ("health", {}), ("retention", {"keep": "1"})):
        at = open_page(page, **params)
        assert not at.exception, (page, at.exception)
        assert not at.error, (page, [e.value for e in at.error])


def test_the_sidebar_switch_opens_a_bundle(bundle, demo_db, app_on_store):
    app_on_store(f"sqlite:///{demo_db}")
    at = open_page("threads")
    at.text_input(key="inspector_switch_url").input(str(bundle))
    at.button[[b.label for b in at.button].index("Open")].click().run()
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value["thread"]) == [CASE]


def test_the_export_button_says_what_the_bundle_holds(demo_db, app_on_store):
    app_on_store(f"sqlite:///{demo_db}")
    at = open_page("thread", thread="demo-research")
    assert not at.exception
    (button,) = [b for b in at.button if b.label == "Export thread"]
    assert "secrets masked" in button.help and not button.disabled
    at = button.click().run()
    assert not at.exception, at.exception
    text = all_text(at)
    assert "The bundle holds" in text and "checkpoint(s) and" in text and "Nothing left out." in text
    assert "Values masked by the redaction rules" in text
    files = next(df.value for df in at.dataframe if "masked" in df.value.columns)
    assert "/mnt/user-data/uploads/cell_prices.csv" in set(files["file"])
    (download,) = [b for b in at.get("download_button") if b.proto.label.startswith("Download the bundle")]
