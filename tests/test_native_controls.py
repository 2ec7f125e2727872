"""The native controls (``native_controls``): what a pick calls, what is ignored, and what reaches the browser."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest
from ui_app import native_control, pick


def _page() -> None:
    import streamlit as st

    from inspector.ui import native_controls

    def moved(index: int) -> None:
        st.session_state.setdefault("moves", []).append(index)

    labels = ["step 0 · input", "step 1 · agent → messages", "<img src=x onerror=alert(1)> ![i](//x.invalid/i.png)"]
    native_controls.scrubber("Checkpoint on this branch", labels, st.session_state.get("at", 1), "scrub", moved)
    native_controls.option_list("Checkpoint", labels, 2, "list", moved, help="every checkpoint")
    native_controls.option_list("Elsewhere", labels, -1, "none", moved, placeholder="Choose one")
    st.write("moves", st.session_state.get("moves", []))


def test_a_pick_calls_back_with_its_index_once():
    at = AppTest.from_function(_page).run()
    assert not at.exception
    assert native_control(at, "scrub") == {"label": "Checkpoint on this branch", "index": 1,
                                           "labels": native_control(at, "list")["labels"]}
    at = pick(at, "scrub", 0)
    assert at.session_state["moves"] == [0]
    at = pick(at, "list", 2)
    assert at.session_state["moves"] == [0, 2]
    at.run()  # a run of anything else: the trigger is spent, nothing is called again
    assert at.session_state["moves"] == [0, 2]


def test_a_pick_outside_the_labels_or_not_a_number_is_ignored():
    at = AppTest.from_function(_page).run()
    for value in (3, -1, True, "1", 1.5, None):
        at = pick(at, "scrub", value)
        assert not at.exception
    assert "moves" not in at.session_state


def test_labels_travel_as_data_and_the_scripts_set_them_as_text():
    from inspector.ui import native_controls

    at = AppTest.from_function(_page).run()
    data = native_control(at, "list")
    assert data["labels"][2].startswith("<img src=x")  # as JSON, never as markup of the element
    assert json.loads(json.dumps(data)) == data
    for script in (native_controls.SCRUB_JS, native_controls.LIST_JS):
        assert "innerHTML" not in script and "insertAdjacentHTML" not in script
        assert "textContent" in script
