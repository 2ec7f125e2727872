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


def displayed(styler) -> list[list[str]]:
    """What each cell of a Styler shows (its display values, as ``st.dataframe`` draws them)."""
    styler._compute()
    return [[cell["display_value"] for cell in row[1:]] for row in styler._translate(False, False)["body"]]


def test_byte_cells_each_in_a_unit_of_their_own_with_the_exact_count_beside():
    shown, config = in_units(pd.DataFrame({"key": ["a", "b", "c"], "bytes": [1_500_000, 20_000, 512],
                                           "other": [900, 5, None], "share": [0.25, 1.0, None]}),
                             "bytes", "other", exact=("bytes",))
    frame = shown.data
    assert list(frame.columns) == ["key", "bytes", "bytes, exact", "other", "share"]
    # the values stay the bytes themselves (a click on the header sorts them as sizes); each cell shows its own unit
    assert list(frame["bytes"]) == [1_500_000, 20_000, 512] and list(frame["bytes, exact"]) == [1_500_000, 20_000, 512]
    assert [row[1] for row in displayed(shown)] == ["1.50 MB", "20.0 KB", "512 B"]  # never "0.00 MB" beside MB
    assert [row[3] for row in displayed(shown)] == ["900 B", "5 B", ""]  # a missing size is blank
    assert [row[4] for row in displayed(shown)] == ["0.25", "1", ""]  # other numbers as the table prints them
    assert {"bytes", "bytes, exact", "other"} <= set(config)
    assert config["bytes, exact"]["type_config"]["format"] == "localized"
    assert config["bytes"]["type_config"]["format"] is None  # a format in the config would win over the cells'
    shown, _ = in_units(pd.DataFrame({"bytes": [3_000]}), "bytes")  # every size column has its exact count by default
    assert list(shown.data["bytes, exact"]) == [3_000] and displayed(shown) == [["3.0 KB", "3000"]]
