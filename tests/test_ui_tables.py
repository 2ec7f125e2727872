"""Display tables: missing values are blank, not a grey "None"."""

from __future__ import annotations

from inspector.ui.tables import blank_missing, table


def test_missing_cells_are_blank_and_present_numbers_keep_their_digits():
    frame = table([{"path": "a.png", "ended at step": 7, "base64 chars": None},
                   {"path": "b.png", "ended at step": None, "base64 chars": None}])
    assert list(frame["ended at step"]) == ["7", ""]
    assert list(frame["base64 chars"]) == ["", ""]
    assert list(frame["path"]) == ["a.png", "b.png"]


def test_columns_without_missing_values_keep_their_type():
    frame = table([{"step": 1, "bytes": 10}, {"step": 2, "bytes": 20}])
    assert frame["bytes"].dtype.kind == "i"


def test_only_named_columns_are_touched():
    frame = blank_missing(table([{"a": None, "b": None}]).assign(a=[None], b=[None]), ["a"])
    assert list(frame["a"]) == [""] and frame["b"].isna().all()
