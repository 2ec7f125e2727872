"""A bundle made from PostgreSQL (LangGraph's shared-blob layout) holds the same states as the source,
in SqliteSaver's layout, read by the SELECT-only role; its files come from --data-dir."""

from __future__ import annotations

import pytest

from inspector.bundle import write_bundle
from inspector.profiles.media_report import media_report
from inspector.settings import Settings
from inspector.store import open_store

pytestmark = pytest.mark.postgres


def states(store, thread_id: str) -> dict:
    return {(r.checkpoint_ns.split(":")[0], r.checkpoint_id): (r.parent_checkpoint_id, store.state(
        thread_id, r.checkpoint_id, r.checkpoint_ns).values) for r in store.timeline(thread_id)}


@pytest.mark.parametrize("thread_id", ["demo-subgraph", "demo-delta", "demo-research"])
def test_a_postgres_thread_bundled_reads_the_same(pg_demo, tmp_path, thread_id):
    pg, folders = pg_demo
    out = tmp_path / f"{thread_id}.zip"
    with open_store(pg.readonly_dsn) as store:
        manifest = write_bundle(store, thread_id, out, data_dir=folders, reveal=True,
                                settings=Settings(allow_reveal=True))
        source = states(store, thread_id)
    assert manifest["source_kind"] == "postgres" and "inspector_ro:***@" in manifest["source"]
    assert manifest["checkpoints"] == len(source)
    with open_store(str(out)) as bundle:
        assert states(bundle, thread_id) == source
        if thread_id == "demo-research":
            report = media_report(bundle, thread_id)
            assert report.user_data.origin == "support bundle"
            assert len(report.artifacts) == 3 and all(a.exists for a in report.artifacts)


def test_a_postgres_thread_bundled_masked_holds_no_trace_of_the_key(postgres_dsn, tmp_path):
    """The support case written by PostgresSaver (values in JSONB and in blob rows): masked the same way."""
    import zipfile

    from bundle_helpers import CASE, FAKE_KEY, run_support_case
    from conftest import fresh_database, grant_readonly_role
    from langgraph.checkpoint.postgres import PostgresSaver

    database = "inspector_bundle_case"
    admin_dsn = fresh_database(postgres_dsn.admin_dsn, database)
    with PostgresSaver.from_conn_string(admin_dsn) as saver:
        saver.setup()
        run_support_case(saver, tmp_path)
    grant_readonly_role(admin_dsn)
    out = tmp_path / "case.zip"
    with open_store(f"{postgres_dsn.readonly_dsn.rsplit('/', 1)[0]}/{database}") as store:
        manifest = write_bundle(store, CASE, out, data_dir=tmp_path, settings=Settings())
        source = store.state(CASE)
    assert manifest["redaction"]["marks"]["api-key"] > 0 and len(manifest["user_data"]["files"]) == 3
    with zipfile.ZipFile(out) as archive:
        assert [n for n in archive.namelist() if FAKE_KEY.encode() in archive.read(n)] == []
    with open_store(str(out)) as bundle:
        state = bundle.state(CASE)
        report = media_report(bundle, CASE)
    assert len(state.values["messages"]) == len(source.values["messages"])
    assert "Deploys fail since 10:00" in state.values["messages"][0]["content"]
    assert len(report.images) == 2 and all(c.decoded and not c.problems for c in report.images)
