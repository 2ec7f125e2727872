"""The CLI's table printer takes the core's rows as they are: dataclasses, dicts, or plain sequences."""

from __future__ import annotations

import io
from dataclasses import dataclass

from inspector.cli.output import print_table
from inspector.formatting import human_bytes
from inspector.sizes.accounting import WhatIf
from inspector.sizes.store_sizes import StoreSizes, store_sizes
from inspector.sizes.what_if import what_if_lines, what_if_text


@dataclass
class Row:
    thread_id: str
    stored_bytes: int
    title: str | None = None


def lines(headers, rows, **kw) -> list[str]:
    out = io.StringIO()
    print_table(headers, rows, out, **kw)
    return out.getvalue().splitlines()


def test_dataclass_rows_print_every_field_in_order_with_formats():
    got = lines(None, [Row("t-1", 2048, "first"), Row("t-22", 10)], formats={"stored_bytes": human_bytes})
    assert got[0].split() == ["thread_id", "stored_bytes", "title"]
    assert got[1].split() == ["t-1", human_bytes(2048).split()[0], human_bytes(2048).split()[1], "first"]
    assert got[2].split() == ["t-22", "10", "B"]  # None is blank, not "None"
    assert got[1].index("first") == got[0].index("title")  # columns aligned


def test_dict_rows_pick_the_named_columns_and_sequences_still_work():
    rows = [{"thread": "a", "title": "x", "stored bytes": 1}, {"thread": "b", "title": "y", "stored bytes": 2}]
    assert [line.split() for line in lines(["stored bytes", "thread"], rows)][1:] == [["1", "a"], ["2", "b"]]
    assert [line.split() for line in lines(["n", "name"], [(1, "one")])] == [["n", "name"], ["1", "one"]]
    assert lines(None, []) == []  # rows by key and none to show


def test_cells_are_masked_and_cut():
    secret = "sk-" + "a" * 40
    [_, cell] = lines(["value"], [{"value": f"key {secret} " + "x" * 80}])
    assert secret not in cell and cell.endswith("...") and len(cell) == 60


def test_one_what_if_sentence_for_a_thread_and_for_a_store():
    what_if = WhatIf(keep_newest=5, keep_newest_saved_bytes=2048, viewed_images_repeated_bytes=0,
                     base64_in_messages_bytes=None)
    said = what_if_lines(what_if)
    assert said[0] == f"keeping only the newest 5 checkpoints per namespace would save {human_bytes(2048)}"
    assert "not measured on this store" in said[2]
    assert what_if_text(what_if) == " · ".join(said)
    empty: StoreSizes = store_sizes([], keep_newest=7)
    assert what_if_lines(empty.what_if)[0].startswith("keeping only the newest 7 checkpoints")
    assert empty.what_if.base64_in_messages_bytes == 0


def test_control_characters_from_the_data_are_shown_escaped():
    from inspector.cli.output import print_json, terminal_safe

    hostile = "id\x1b]0;title\x07\x1b[2J\rX\x08\x9b31m\u202eevil\tend\u200e1\u200f2\u061c3"
    [head, cell] = lines(["thread\x1b[1m"], [{"thread\x1b[1m": hostile}])
    for text in (head, cell):
        assert not any(c in text for c in "\x1b\x07\r\x08\x9b\u202e\t\u200e\u200f\u061c")
    assert cell.startswith("id\\x1b]0;title\\x07\\x1b[2J\\rX\\x08\\x9b31m\\u202eevil\\tend")
    assert terminal_safe("a-\u200e1\u200f2\u061c3") == "a-\\u200e1\\u200f2\\u061c3"  # the marks that move neutrals
    assert terminal_safe("two\nlines") == "two\nlines" and terminal_safe("a\nb", newlines=False) == "a\\nb"
    out = io.StringIO()
    print_json({"v": hostile}, out)
    assert not any(c in out.getvalue() for c in "\x1b\x07\r\x08\x9b\u202e\u200e\u200f\u061c")
    import json
    assert json.loads(out.getvalue())["v"] == hostile  # escaped as JSON, the same string


def test_escaping_matches_every_unsafe_code_point_and_nothing_else():
    """Output escaping replaces exactly the listed characters by their escapes, in tables and in JSON,
    over all of Unicode (``str.translate`` with the same table is the reference)."""
    from inspector.cli import output

    every = "".join(chr(c) for c in range(0x110000))
    assert output.terminal_safe(every) == every.translate(output._ESCAPES)
    assert output._escape_json(every) == every.translate(output._JSON_ESCAPES)
    assert output.terminal_safe("plain text\n") == "plain text\n"


def test_an_id_cell_spells_a_line_feed_and_a_prose_cell_reads_it_as_a_space():
    [head, row] = lines(["thread", "title"], [("a\nb\tc\rd", "two\nlines")], prose=("title",))
    assert row.split("  ")[0] == "a\\nb\\tc\\rd" and row.endswith("two lines")
    assert lines(["title"], [("two\nlines",)])[1] == "two\\nlines"  # a column not named prose is an id's


def test_a_thread_id_holding_a_line_feed_reads_as_itself_in_every_table(tmp_path, capsys):
    """``a\\nb`` is another thread than ``a b``: threads, health, sizes and growth name it ``a\\nb``."""
    import sqlite3

    from growth_store import build_graph
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    from inspector.cli import main

    path = tmp_path / "lf.db"
    with sqlite3.connect(path, check_same_thread=False) as conn:
        build_graph(SqliteSaver(conn)).invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "a\nb"}})
    for args in (["threads"], ["health", "a\nb"], ["health"], ["sizes", "a\nb"], ["sizes"], ["growth", "--by", "thread"]):
        assert main([*args, "--db", str(path), "--quiet"]) == 0
        out = capsys.readouterr().out
        assert "a\\nb" in out and "a b" not in out, (args, out)


def test_a_listed_id_is_masked_before_it_is_cut():
    """A listing line's id is cut as error lines quote it, after masking: a secret at the cut never shows in part."""
    from inspector.cli.output import listed

    assert listed("L" * 10_000) == "L" * 160 + "… (10,000 characters)" and listed("plain-id") == "plain-id"
    cut = listed("L" * 150 + " sk-" + "a" * 40 + " " + "L" * 100)
    assert "sk-a" not in cut and cut.endswith(" characters)")
