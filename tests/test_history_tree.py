"""The drawn history tree (``history_tree``): what a click calls, what is ignored, and what reaches the browser."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest
from ui_app import native_control, pick

HOSTILE = "<img src=x onerror=alert(1)> ![i](//x.invalid/i.png)"


def _page() -> None:
    import streamlit as st

    from inspector.history.tree_chart import TreeData
    from inspector.ui import history_tree

    hostile = "<img src=x onerror=alert(1)> ![i](//x.invalid/i.png)"  # the page runs alone: no module names
    points = [
        {"checkpoint": "c2", "ns": "", "row": 0, "lane": 0, "namespace": "", "id": "c2", "step": 2, "source": "loop",
         "branch": "main", "label": "2 · agent → messages", "wrote": "messages", "kind": "checkpoint",
         "selected": True, "colour": "#4c78a8"},
        {"checkpoint": "c1", "ns": "", "row": 1, "lane": 0, "namespace": "", "id": "c1", "step": 1, "source": "",
         "branch": "main", "label": hostile, "wrote": "", "kind": "fork", "selected": False, "colour": "#9ca3af"},
    ]
    data = TreeData(points, [{"lane": 0, "row": 0, "lane2": 0, "row2": 1, "cross": False}],
                    [{"lane": 0, "row": -0.9, "text": "main"}], 1, 2)

    def moved(index: int) -> None:
        st.session_state.setdefault("moves", []).append(index)

    history_tree.tree("The history tree", data, "tree", moved)


def test_a_click_calls_back_with_the_point_once_and_anything_else_is_ignored():
    at = AppTest.from_function(_page).run()
    assert not at.exception
    at = pick(at, "tree", 1)
    assert at.session_state["moves"] == [1]
    at.run()  # the trigger is spent: nothing is called again
    for value in (2, -1, True, "0", 0.5, None):
        at = pick(at, "tree", value)
        assert not at.exception
    assert at.session_state["moves"] == [1]


def test_each_point_carries_its_row_its_look_and_a_tooltip_of_what_it_says():
    at = AppTest.from_function(_page).run()
    drawn = native_control(at, "tree")
    assert drawn["label"] == "The history tree" and drawn["rows"] == 2
    first, second = drawn["points"]
    assert (first["selected"], first["kind"], first["colour"]) == (True, "checkpoint", "#4c78a8")
    assert first["tip"].splitlines() == ["step: 2", "label: 2 · agent → messages", "source: loop", "branch: main",
                                         "checkpoint: c2"]  # no empty source or namespace line
    assert second["kind"] == "fork" and "source" not in second["tip"]
    assert drawn["edges"] == [{"lane": 0, "row": 0, "lane2": 0, "row2": 1, "cross": False}]
    assert drawn["labels"] == [{"lane": 0, "row": -0.9, "text": "main"}]


def test_labels_travel_as_data_and_the_script_sets_them_as_text():
    from inspector.ui import history_tree

    at = AppTest.from_function(_page).run()
    drawn = native_control(at, "tree")
    assert drawn["points"][1]["label"] == HOSTILE  # as JSON, never as markup of the element
    assert json.loads(json.dumps(drawn)) == drawn
    assert "innerHTML" not in history_tree.TREE_JS and "insertAdjacentHTML" not in history_tree.TREE_JS
    assert "textContent" in history_tree.TREE_JS
