"""Commands over a thread with subgraphs (``subgraph_modes_store``, written by LangGraph's SqliteSaver and
PostgresSaver): ``images``, ``artifacts`` and ``uploads`` read a subgraph's namespace with ``--ns`` as ``state``
does (same default, same errors; ``graph`` refuses a namespace the same way), and ``delta-what-if`` prices
every namespace of a thread, so its prediction from the full-mode thread matches what delta mode really
stores, subgraphs included."""

from __future__ import annotations

import json

import pytest
from conftest import written_database
from subgraph_modes_store import (
    FULL_THREAD,
    ROOT_ARTIFACT,
    SUB_ARTIFACT,
    delta_thread,
    write_subgraph_modes,
    write_subgraph_modes_postgres,
)

from inspector.cli import main
from inspector.sizes.delta_what_if import delta_what_if, store_delta_what_if
from inspector.store import open_store

FREQUENCIES = (2, 5)


@pytest.fixture(scope="module")
def sub_db(tmp_path_factory):
    return write_subgraph_modes(tmp_path_factory.mktemp("subgraphs") / "subgraphs.db", FREQUENCIES)


@pytest.fixture(scope="module")
def sub_pg(postgres_dsn):
    return written_database(postgres_dsn, "inspector_subgraph_modes",
                            lambda admin: write_subgraph_modes_postgres(admin, FREQUENCIES))[1]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def sub_url(request):
    return str(request.getfixturevalue("sub_db")) if request.param == "sqlite" else request.getfixturevalue("sub_pg")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--quiet"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def subgraph_ns(url: str) -> str:
    with open_store(url) as store:
        return sorted({r.checkpoint_ns for r in store.timeline(FULL_THREAD) if r.checkpoint_ns})[-1]


def test_delta_what_if_prices_the_subgraphs_too(sub_url):
    with open_store(sub_url) as store:
        listed = {t.thread_id: t.stored_bytes for t in store.threads(limit=10)}
        rows = store.timeline(FULL_THREAD)
        report = delta_what_if(store, FULL_THREAD, FREQUENCIES)
        root_only = sum(s.stored_bytes + s.writes_bytes for s in store.iter_field_sizes(FULL_THREAD, ""))
    namespaces = {r.checkpoint_ns for r in rows} - {""}
    assert report.stored_bytes == listed[FULL_THREAD] and report.checkpoints == len(rows)
    assert report.subgraph_namespaces == len(namespaces) == 6
    assert f"in {len(namespaces)} subgraph namespace(s)" in report.basis
    assert root_only < 0.85 * listed[FULL_THREAD]  # the subgraphs hold a real part of the thread's bytes
    for option in report.options:  # what delta mode really stores, root graph and subgraphs together
        assert option.stored_bytes == pytest.approx(listed[delta_thread(option.frequency)], rel=0.03)
    for frequency in FREQUENCIES:  # a delta thread priced at its own frequency: what it stores now
        with open_store(sub_url) as store:
            own = delta_what_if(store, delta_thread(frequency), (frequency,))
        assert own.mode == "delta" and own.options[0].stored_bytes == pytest.approx(own.stored_bytes, rel=0.02)


def test_store_wide_delta_what_if_measures_subgraph_bytes_and_says_so(sub_db, capsys):
    with open_store(str(sub_db)) as store:
        report = store_delta_what_if(store, 10, (5,))
    assert report.measured_bytes == report.store_bytes  # every thread, whole: subgraph rows are not left out
    assert "every subgraph namespace" in report.basis
    code, out, _ = run(capsys, "delta-what-if", "--db", str(sub_db), "--frequency", "5")
    assert code == 0 and "(100%)" in out and "every subgraph namespace" in out
    code, out, _ = run(capsys, "delta-what-if", "--db", str(sub_db), FULL_THREAD, "--frequency", "5")
    assert code == 0 and "across the root graph and 6 subgraph namespace(s)" in out.splitlines()[0]


@pytest.fixture
def thread_files(tmp_path):
    user_data = tmp_path / "threads" / FULL_THREAD / "user-data"
    for folder in ("outputs", "uploads", "workspace"):
        (user_data / folder).mkdir(parents=True)
    (user_data / "outputs" / "subgraph-notes.md").write_text("notes\n")
    (user_data / "uploads" / "sources.csv").write_text("a,b\n1,2\n3,4\n")
    return tmp_path


def test_media_commands_read_a_subgraph_namespace(sub_url, thread_files, capsys):
    ns = subgraph_ns(sub_url)
    base = ["--db", sub_url, FULL_THREAD, "--data-dir", str(thread_files), "--profile", "deerflow", "--json"]
    code, out, _ = run(capsys, "artifacts", *base)
    root = json.loads(out)
    code, out, _ = run(capsys, "artifacts", *base, "--ns", ns)
    sub = json.loads(out)
    assert code == 0 and (root["checkpoint_ns"], sub["checkpoint_ns"]) == ("", ns)
    assert [a["path"] for a in root["artifacts"]] == [ROOT_ARTIFACT]
    assert [(a["path"], a["exists"]) for a in sub["artifacts"]] == [(SUB_ARTIFACT, True)]
    code, out, _ = run(capsys, "uploads", *base, "--ns", ns)
    assert code == 0 and [u["name"] for u in json.loads(out)["uploads"]] == ["sources.csv"]
    code, out, _ = run(capsys, "uploads", *base)
    assert code == 0 and json.loads(out)["uploads"] == []
    code, out, _ = run(capsys, "images", *base, "--ns", ns)
    assert code == 0 and json.loads(out)["checkpoint_ns"] == ns
    code, out, _ = run(capsys, "artifacts", *base[:-1], "--ns", ns)  # the table names the namespace read
    assert code == 0 and f"ns {ns}" in out.splitlines()[0] and "subgraph-notes.md" in out


def test_media_commands_refuse_a_namespace_as_state_does(sub_url, thread_files, capsys):
    ns = subgraph_ns(sub_url)
    with open_store(sub_url) as store:
        root_checkpoint = next(r.checkpoint_id for r in store.timeline(FULL_THREAD) if r.checkpoint_ns == "")
    base = ["--db", sub_url, FULL_THREAD, "--data-dir", str(thread_files)]
    for extra in (["--ns", "no-such:ns"], ["--ns", ns, "--checkpoint", root_checkpoint]):
        code, _, expected = run(capsys, "state", *base[:3], *extra)
        assert code == 2 and expected.startswith("error: no checkpoint")
        for command in ("images", "artifacts", "uploads"):
            code, out, err = run(capsys, command, *base, *extra)
            assert (code, out, err) == (2, "", expected), command
        code, out, err = run(capsys, "graph", *base[:3], *extra)  # the namespace of the step it highlights
        assert (code, out, err) == (2, "", expected)
    code, out, _ = run(capsys, "graph", *base[:3], "--ns", ns)
    assert code == 0 and out.startswith("digraph")
