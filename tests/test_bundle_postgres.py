"""A bundle made from PostgreSQL (LangGraph's shared-blob layout) holds the same states as the source,
in SqliteSaver's layout, read by the SELECT-only role; its files come from --data-dir."""

from __future__ import annotations

import pytest

from inspector.bundle import write_bundle
from inspector.media_report import media_report
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
        manifest = write_bundle(store, thread_id, out, data_dir=folders, redact=False, settings=Settings())
        source = states(store, thread_id)
    assert manifest["source_kind"] == "postgres" and "inspector_ro:***@" in manifest["source"]
    assert manifest["checkpoints"] == len(source)
    with open_store(str(out)) as bundle:
        assert states(bundle, thread_id) == source
        if thread_id == "demo-research":
            report = media_report(bundle, thread_id)
            assert report.user_data.origin == "support bundle"
            assert len(report.artifacts) == 3 and all(a.exists for a in report.artifacts)
