"""Error lines naming what a support engineer typed: a thread, checkpoint or namespace id that is not UTF-8, holds
control characters or is very long, given to every command and option that takes one, on the demo written by
LangGraph's SqliteSaver and by its PostgresSaver. Each answer is one line on stderr and exit 2, never a
traceback; the id is spelled as tables spell it (``'no-such\\xff\\xfe' (not UTF-8)``, never ``'\\udcff'``), its
control characters escaped, and a very long one cut with its length said."""

from __future__ import annotations

import json

import hostile_corpus as corpus
import pytest

from inspector.cli import main
from inspector.store.not_utf8 import decode, quoted

NOT_UTF8 = decode(b"no-such\xff\xfe")
CONTROLS = "esc\x1b]0;title\x07\x1b[2J\r\u202e\x9b"
LONG = "L" * 100_000
THREAD = "demo-research"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def demo_url(request):
    if request.param == "sqlite":
        return str(request.getfixturevalue("demo_db"))
    return request.getfixturevalue("pg_demo")[0].readonly_dsn


# (command and arguments before the hostile id, the option that takes it); None: the thread argument itself
SLOTS = [
    (["timeline"], None), (["state"], None), (["graph"], None), (["diff"], None), (["replay"], None),
    (["images"], None), (["artifacts"], None), (["uploads"], None), (["sizes"], None), (["health"], None),
    (["delta-what-if"], None),
    (["state", THREAD], "--checkpoint"), (["state", THREAD], "--ns"), (["graph", THREAD], "--checkpoint"),
    (["diff", THREAD], "--from"), (["diff", THREAD], "--to"), (["diff", THREAD], "--ns"),
    (["diff", THREAD], "--against-thread"), (["replay", THREAD], "--ns"), (["images", THREAD], "--checkpoint"),
    (["artifacts", THREAD], "--ns"), (["uploads", THREAD], "--checkpoint"), (["delta-what-if", THREAD], "--channel"),
    (["state", THREAD], "--profile"), (["state", THREAD], "--schema"),
]


def one_error_line(capsys, argv: list[str]) -> str:
    code = main([*argv, "--quiet"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "", (argv[:4], captured.err[:300])
    err = captured.err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err[:300]
    assert corpus.controls_in(err) == [] and "\\udc" not in err, err[:300]
    return err


@pytest.mark.parametrize("hostile", [NOT_UTF8, CONTROLS, LONG], ids=["not-utf8", "controls", "long"])
def test_every_id_argument_answers_in_one_line_spelling_the_id_as_tables_do(demo_url, capsys, hostile):
    for before, option in SLOTS:
        argv = [before[0], "--db", demo_url, *before[1:], *([option] if option else []), hostile]
        err = one_error_line(capsys, argv)
        assert quoted(hostile) in err, (before, option, err[:300])
        if hostile is LONG:
            assert len(err) < 400 and "(100,000 characters)" in err
        elif hostile is NOT_UTF8:
            assert "'no-such\\xff\\xfe' (not UTF-8)" in err
        else:
            assert "'esc\\x1b]0;title\\x07\\x1b[2J\\r\\u202e\\x9b'" in err


def test_quoted_spells_an_id_once_and_inertly():
    assert quoted("plain-id") == "'plain-id'"
    assert quoted(NOT_UTF8) == "'no-such\\xff\\xfe' (not UTF-8)"
    assert quoted("victim\\xff") == "'victim\\xff'"  # a real id spelled with a backslash: no mark, so never the same
    assert quoted("a\x00b\u2028c\u200bd") == "'a\\x00b\\u2028c\\u200bd'"
    cut = quoted(LONG + "\udcff")
    assert cut.endswith("…' (100,001 characters) (not UTF-8)") and len(cut) < 250


def test_a_bundle_path_no_file_system_can_hold_is_one_line(demo_db, tmp_path, capsys):
    for name in ("L" * 100_000 + ".zip", "L" * 252 + ".zip"):  # the second: its .building neighbour is too long
        err = one_error_line(capsys, ["bundle", "--db", str(demo_db), THREAD, "--out", str(tmp_path / name)])
        assert err.startswith("error: --out: cannot write the bundle to '") and "File name too long" in err
        assert len(err) < 400
    assert list(tmp_path.iterdir()) == []


def test_a_retention_preview_naming_an_id_no_thread_has_previews_nothing(demo_url, capsys):
    """``prune-preview --threads`` names threads to limit the policy to: one the store does not hold (PostgreSQL
    cannot hold an id that is not UTF-8) is no error, and the others are still previewed."""
    for hostile in (NOT_UTF8, CONTROLS, LONG):
        code = main(["prune-preview", "--db", demo_url, "--keep-latest", "1", "--threads", hostile, THREAD,
                     "--json", "--quiet"])
        captured = capsys.readouterr()
        assert code == 0 and captured.err == "", captured.err[:300]
        plan = json.loads(captured.out)
        assert [t["thread_id"] for t in plan["threads"]] == [THREAD]


def test_an_empty_thread_id_is_a_thread_no_store_here_holds_not_the_whole_store(demo_db, capsys):
    for command in ("timeline", "sizes", "health", "delta-what-if"):
        err = one_error_line(capsys, [command, "--db", str(demo_db), ""])
        assert err == "error: no thread '' in this store\n", command


@pytest.mark.parametrize("hostile", [NOT_UTF8, CONTROLS, LONG], ids=["not-utf8", "controls", "long"])
def test_a_bundle_of_a_hostile_thread_id_is_one_line_and_no_file(demo_url, tmp_path, capsys, hostile):
    err = one_error_line(capsys, ["bundle", "--db", demo_url, hostile, "--out", str(tmp_path / "case.zip")])
    assert quoted(hostile) in err and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("hostile", [NOT_UTF8, CONTROLS], ids=["not-utf8", "controls"])
def test_a_search_for_text_no_thread_holds_lists_none(demo_url, capsys, hostile):
    assert main(["threads", "--db", demo_url, "--search", hostile, "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["threads"] == [] and captured.err == ""


def test_a_store_url_and_a_setting_are_named_as_ids_are_quoted(demo_db, capsys, monkeypatch):
    """What the operator typed (a ``--db`` URL, a setting's value) is named as an id is: cut past 200 characters."""
    url = "mysql://it's/" + LONG
    err = one_error_line(capsys, ["threads", "--db", url])
    assert err.startswith(f"error: unsupported store URL {quoted(url)}: ")
    value = "it's " + LONG
    monkeypatch.setenv("INSPECTOR_CACHE_TTL_SECONDS", value)
    err = one_error_line(capsys, ["threads", "--db", str(demo_db)])
    assert f"cache_ttl_seconds must be an integer, got {quoted(value)}" in err


def test_a_long_line_a_progress_label_and_a_table_cell_are_cut_alike_with_their_length(capsys):
    from inspector.cli import output, progress

    output.warn("error: " + "x" * 5_000)
    err = capsys.readouterr().err
    assert err.endswith("x... [5,007 chars]\n") and len(err) == output.WARN_LONGEST + 1
    assert progress.StderrProgress("L" * 5_000).label == "L" * (progress.LABEL_CHARS - 17) + "... [5,000 chars]"
    output.print_table(["id"], [{"id": "L" * 5_000}])
    assert capsys.readouterr().out.splitlines()[1] == "L" * 43 + "... [5,000 chars]"
