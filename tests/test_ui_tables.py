"""Display tables: missing values are blank, not a grey "None"."""

from __future__ import annotations

import pandas as pd

from inspector.ui.tables import blank_missing, in_units, table


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


def test_byte_columns_in_one_unit_each_with_the_exact_count_beside_where_asked():
    frame, config = in_units(pd.DataFrame({"key": ["a", "b"], "bytes": [1_500_000, 20_000], "other": [900, 5]}),
                             "bytes", "other", exact=("bytes",))
    assert list(frame.columns) == ["key", "bytes", "bytes, exact", "other"]
    assert list(frame["bytes"]) == [1.5, 0.02] and list(frame["bytes, exact"]) == [1_500_000, 20_000]
    assert list(frame["other"]) == [900, 5]  # bytes under 1 KB stay bytes
    assert {"bytes", "bytes, exact", "other"} <= set(config)
    frame, _ = in_units(pd.DataFrame({"bytes": [3_000]}), "bytes", exact=True)
    assert list(frame["bytes, exact"]) == [3_000] and list(frame["bytes"]) == [3.0]
