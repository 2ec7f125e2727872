"""AppTest: the state view on its own — problems beside their field, a failing field view kept to itself."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script():
    from inspector.store import CheckpointState, Problem
    from inspector.store.decode import Opaque
    from inspector.ui import panels, state_view

    def broken(value, ctx):
        raise ValueError("todo view exploded")

    state = CheckpointState(
        thread_id="t", checkpoint_ns="", checkpoint_id="c1", parent_checkpoint_id=None,
        values={"title": Opaque("pickle", 12, "pickled values are never unpickled"),
                "todos": [{"content": "x", "status": "pending"}], "mystery": {"a": 1}},
        internal={"__start__": None}, metadata={"step": 1}, writes=[],
        problems=[Problem("pickled value left opaque", "title", "opaque"), Problem("blob truncated")],
    )
    state_view.render_state(state, None, {**panels.FIELD_VIEWS, "todos": broken})


def test_problems_sit_beside_their_field_and_a_failing_view_stays_in_its_field():
    at = AppTest.from_function(_script, default_timeout=60).run()
    assert not at.exception
    assert [w.value for w in at.warning] == ["blob truncated", "title: pickled value left opaque"]
    assert any("todo view exploded" in e.value for e in at.error)
    markdown = "\n".join(m.value for m in at.markdown)
    assert "**`mystery`**" in markdown and "not in the schema" in markdown  # unknown fields are kept
    assert at.get("download_button")


def test_raw_checkpoint_and_writes_are_sent_only_on_request(demo_db, monkeypatch):
    import json as _json

    from ui_app import open_page

    from inspector.store import open_store
    from inspector.ui import connection

    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{demo_db}")
    connection.settings.clear()
    with open_store(str(demo_db)) as store:
        newest = store.state("demo-bloated")
    sample = next(iter(newest.values["viewed_images"].values()))["base64"][:200]
    at = open_page("thread", thread="demo-bloated", checkpoint=newest.checkpoint_id)
    assert not at.exception
    shown = [_json.dumps(j.value) if not isinstance(j.value, str) else j.value for j in at.json]
    assert not any(sample in text for text in shown)  # no base64 in the page until asked for
    at.toggle(key="show_raw").set_value(True).run()
    assert not at.exception
    assert any(sample in (j.value if isinstance(j.value, str) else _json.dumps(j.value)) for j in at.json)
    connection.settings.clear()
