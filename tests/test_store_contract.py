"""One contract for every store backend, on the same demo threads written by LangGraph's own savers.

Backends: SQLite (direct SQL), PostgreSQL (direct SQL, as the read-only role), and
the saver adapter over InMemorySaver and over PostgresSaver. SQLite is the
reference; every backend must list the same threads, the same timelines and the
same decoded states.

Differences that are real, and therefore not compared:
- Checkpoint ids, task ids (and so subgraph namespaces), interrupt ids, random channel-version
  suffixes and the thread-folder base differ between runs: they are normalised.
- Sizes: SQLite stores one msgpack blob per checkpoint; PostgreSQL stores JSONB
  plus blob rows that unchanged channels *share* between checkpoints (a thread's
  total counts each blob row once, a checkpoint's size counts every blob it
  references); the saver adapter can only measure values re-serialized.
  Sizes are checked per backend for what they mean, not against each other.
- Delta channels: where a delta channel's version did not change since its last
  snapshot, PostgreSQL's blob row for that version *is* the snapshot, so the
  value is read as stored there while SQLite rebuilds it. The values agree;
  which checkpoints are marked rebuilt may differ.
- The saver API does not return a write's ``task_path`` or stored ``idx``.
- PostgresSaver drops the ``writes`` key from the metadata it stores (SqliteSaver and
  InMemorySaver keep it): DeerFlow's checkpoints written through ``put`` say what they
  wrote there. Metadata is compared without it, and the PostgreSQL backends are checked
  for its absence.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg.rows import dict_row

from inspector.demo import DEMO_THREADS, run_demo
from inspector.store import NotFound, StoreError, open_store
from inspector.store.saver import SaverStore

pytestmark = pytest.mark.postgres

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b")
BACKENDS = ["sqlite", "postgres", "saver-memory", "saver-postgres"]
SAMPLED = {"demo-long": 12}  # long threads: compare the first and last checkpoints only


@pytest.fixture(scope="module")
def memory_demo(tmp_path_factory):
    saver = InMemorySaver()
    out = run_demo(saver, tmp_path_factory.mktemp("memory-demo"))
    return saver, out


@pytest.fixture(scope="module")
def backends(demo_db, demo_dir, pg_demo, memory_demo):
    pg, pg_out = pg_demo
    opened: dict[str, tuple[Any, Path]] = {}
    opened["sqlite"] = (open_store(f"sqlite:///{demo_db}"), demo_dir)
    opened["postgres"] = (open_store(pg.readonly_dsn), pg_out)
    opened["saver-memory"] = (SaverStore(memory_demo[0], "memory"), memory_demo[1])
    conn = psycopg.connect(pg.readonly_dsn, autocommit=True, row_factory=dict_row, prepare_threshold=0)
    opened["saver-postgres"] = (SaverStore(PostgresSaver(conn), "postgres-saver"), pg_out)
    yield opened
    for store, _ in opened.values():
        store.close()
    conn.close()


@pytest.fixture(params=BACKENDS)
def backend(request, backends):
    return backends[request.param]


@pytest.fixture
def reference(backends):
    return backends["sqlite"]


def normal(value: Any, base: Path) -> Any:
    """Run-specific strings (ids, the thread-folder base) replaced by placeholders."""
    if isinstance(value, str):
        return UUID.sub("<uuid>", value.replace(str(base), "<base>"))
    if isinstance(value, dict):
        return {normal(k, base): normal(v, base) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normal(v, base) for v in value]
    return value


def ns_shape(ns: str) -> str:
    return "|".join(part.split(":")[0] for part in ns.split("|")) if ns else ""


def timeline_shape(store) -> Counter:
    """Every checkpoint as (namespace shape, step, source, its parent's step and source, write channels)."""
    shapes: Counter = Counter()
    for thread_id in DEMO_THREADS:
        rows = store.timeline(thread_id)
        by_id = {(r.checkpoint_ns, r.checkpoint_id): r for r in rows}
        for r in rows:
            parent = by_id.get((r.checkpoint_ns, r.parent_checkpoint_id))
            shapes[(thread_id, ns_shape(r.checkpoint_ns), r.step, r.source,
                    (parent.step, parent.source) if parent else None, tuple(sorted(r.write_channels)))] += 1
    return shapes


def root_ids(store, thread_id: str) -> list[str]:
    """Root checkpoints in creation order (ids are time-ordered within one run)."""
    ids = sorted(r.checkpoint_id for r in store.timeline(thread_id) if r.checkpoint_ns == "")
    keep = SAMPLED.get(thread_id)
    return ids[:keep] + ids[-keep:] if keep and len(ids) > 2 * keep else ids


def comparable_state(store, base: Path, thread_id: str, checkpoint_id: str) -> dict:
    state = store.state(thread_id, checkpoint_id)
    writes = Counter(repr(normal([w.task_id, w.channel, w.value], base)) for w in state.writes)
    return {
        "values": normal(state.values, base),
        "metadata": normal({k: v for k, v in state.metadata.items() if k != "writes"}, base),
        "writes": writes,
        "versions": sorted(state.header.get("channel_versions", {})),
        "problems": [p.message for p in state.problems],
    }


def test_same_threads_and_titles(backend, reference):
    store, _ = backend
    ref, _ = reference
    mine = {t.thread_id: t for t in store.threads(limit=100)}
    theirs = {t.thread_id: t for t in ref.threads(limit=100)}
    assert set(DEMO_THREADS) <= set(mine)
    assert store.count_threads() == len(mine)
    for tid in DEMO_THREADS:
        assert (mine[tid].checkpoints, mine[tid].namespaces, mine[tid].title) == (
            theirs[tid].checkpoints, theirs[tid].namespaces, theirs[tid].title), tid
        assert mine[tid].stored_bytes > 0 and mine[tid].updated_at is not None
    assert [t.thread_id for t in store.threads(search="vision")] == ["demo-vision"]
    assert [t.thread_id for t in store.threads(search="VISION")] == ["demo-vision"]
    # search is a plain substring: LIKE's wildcards match only themselves
    assert store.count_threads(search="%") == store.count_threads(search="demo_") == 0


def test_postgres_savers_drop_the_metadata_writes_key(backends, request):
    """What DeerFlow's put checkpoints record in ``writes`` survives only where the saver keeps it."""
    kept = {name: any("writes" in r.metadata for r in store.timeline("demo-deerflow-current"))
            for name, (store, _) in backends.items()}
    assert kept == {"sqlite": True, "postgres": False, "saver-memory": True, "saver-postgres": False}


def test_same_kinds_and_branch_links(backend, reference):
    """DeerFlow's own checkpoints are named and branches linked on every backend (where ``writes`` is dropped,
    goal writes are named as plain puts)."""
    from inspector.checkpoint_kinds import branch_origin, kind_at
    from inspector.history import build_history

    def kinds(store):
        history = build_history(store.timeline("demo-deerflow-current"))
        return [(kind.name, kind.detail) for key in reversed(history.ordered) if (kind := kind_at(history, key))]

    store, ref = backend[0], reference[0]
    mine, theirs = kinds(store), kinds(ref)
    if any("writes" in r.metadata for r in store.timeline("demo-deerflow-current")):
        assert mine == theirs
    else:
        assert [name if name.startswith("run") else "put" for name, _ in theirs] == [name for name, _ in mine]
    assert [name for name, _ in theirs] == ["goal set", "run finished", "goal set", "run finished", "goal set",
                                            "run finished", "goal cleared"]
    assert [b.thread_id for b in store.branch_threads("demo-deerflow-current")] == ["demo-branch"]
    assert store.branch_threads("demo-branch") == []
    origin = branch_origin(store.timeline("demo-branch"))
    assert origin.parent_thread_id == "demo-deerflow-current"
    assert origin.parent_checkpoint_id in {r.checkpoint_id for r in store.timeline("demo-deerflow-current")}


def test_same_timelines(backend, reference):
    assert timeline_shape(backend[0]) == timeline_shape(reference[0])


@pytest.mark.parametrize("thread_id", list(DEMO_THREADS))
def test_same_decoded_states(backend, reference, thread_id):
    store, base = backend
    ref, ref_base = reference
    mine, theirs = root_ids(store, thread_id), root_ids(ref, thread_id)
    assert len(mine) == len(theirs)
    for cid, ref_cid in zip(mine, theirs):
        assert comparable_state(store, base, thread_id, cid) == comparable_state(ref, ref_base, thread_id, ref_cid), cid


def test_same_subgraph_states(backend, reference):
    def sub_states(store, base):
        rows = [r for r in store.timeline("demo-subgraph") if r.checkpoint_ns]
        rows.sort(key=lambda r: (ns_shape(r.checkpoint_ns), r.checkpoint_id))
        return [normal(store.state("demo-subgraph", r.checkpoint_id, r.checkpoint_ns).values, base) for r in rows]

    mine = sub_states(*backend)
    assert mine and mine == sub_states(*reference)


def test_delta_channel_is_rebuilt_and_marked(backend):
    store, _ = backend
    rows = sorted((r for r in store.timeline("demo-delta") if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id)
    states = [store.state("demo-delta", r.checkpoint_id) for r in rows]
    rebuilt = [s for s in states if "messages" in s.rebuilt_channels]
    stored = [s for s in states if "messages" in s.values and "messages" not in s.rebuilt_channels]
    assert rebuilt and stored  # deltas between snapshots
    newest = states[-1]
    assert "messages" in newest.rebuilt_channels
    humans = [m for m in newest.values["messages"] if m["type"] == "human"]
    assert len(humans) == 3 and all(m["id"].startswith("demo-delta-") for m in newest.values["messages"])
    # messages grow monotonically through rebuilt and stored checkpoints alike
    counts = [len(s.values.get("messages") or []) for s in states]
    assert counts == sorted(counts) and counts[-1] > counts[len(counts) // 2]
    assert not any(p.kind == "delta" for s in states for p in s.problems)


def test_delta_sizes_count_what_is_stored(backend):
    """A rebuilt channel has no stored bytes at that checkpoint; a snapshot does."""
    store, _ = backend
    states = [store.state("demo-delta", r.checkpoint_id) for r in store.timeline("demo-delta")]
    assert all("messages" not in s.channel_bytes for s in states if "messages" in s.rebuilt_channels)
    assert any(s.channel_bytes.get("messages", 0) > 0 for s in states if "messages" not in s.rebuilt_channels)


def test_interrupt_write_is_pending_on_the_newest_root_checkpoint(backend):
    store, _ = backend
    state = store.state("demo-interrupt")
    interrupts = [w for w in state.writes if w.channel == "__interrupt__"]
    assert interrupts and "?" in str(interrupts[0].value)


def test_forks_are_visible_from_parent_ids(backend):
    store, _ = backend
    children = Counter(r.parent_checkpoint_id for r in store.timeline("demo-time-travel") if r.parent_checkpoint_id)
    assert max(children.values()) >= 2


def diff_shape(store, base: Path, thread_id: str) -> list:
    """Every root checkpoint diffed against its parent: fields, statuses and changes."""
    from inspector.diff import diff_checkpoints

    out = []
    for cid in root_ids(store, thread_id):
        after = store.state(thread_id, cid)
        if not after.parent_checkpoint_id:
            continue
        result = diff_checkpoints(store, thread_id, after.parent_checkpoint_id, cid)
        out.append(normal([(f.field, f.reducer, f.status, f.note,
                            [(c.kind, c.key, c.summary) for c in f.changes]) for f in result.changed_fields], base))
    return out


@pytest.mark.parametrize("thread_id", ["demo-research", "demo-vision", "demo-time-travel", "demo-delta"])
def test_same_diffs(backend, reference, thread_id):
    mine = diff_shape(*backend, thread_id)
    assert mine and any(mine)
    assert mine == diff_shape(*reference, thread_id)


@pytest.mark.parametrize("thread_id", ["demo-bloated", "demo-vision", "demo-delta"])
def test_field_sizes_match_the_decoded_channel_bytes(backend, thread_id):
    """Sizes read without decoding agree with the stored sizes a decode reports, checkpoint by checkpoint."""
    store, _ = backend
    rows = store.field_sizes(thread_id, None)
    assert len(rows) == len(store.timeline(thread_id))
    assert [r.checkpoint_id for r in rows] == sorted(r.checkpoint_id for r in rows)
    for row in rows[-6:]:
        state = store.state(thread_id, row.checkpoint_id, row.checkpoint_ns)
        assert {name: c.bytes for name, c in row.channels.items()} == state.channel_bytes


def test_health_flags_agree(backend):
    from inspector.health import thread_health

    store, _ = backend
    bloated = set(thread_health(store, "demo-bloated").codes())
    assert {"oversized-state", "oversized-field", "uncleared-images"} <= bloated
    assert "uncleared-images" not in thread_health(store, "demo-vision").codes()
    assert store.size_accounting in ("per-checkpoint-copy", "shared-blobs")


@pytest.mark.parametrize("thread_id", ["no-such-thread", "a'; DROP TABLE checkpoints; --", "../../etc", "%", "ünïcode 🧵"])
def test_unknown_threads_and_checkpoints_are_not_found(backend, thread_id):

    store, _ = backend
    with pytest.raises(NotFound, match="no thread"):
        store.timeline(thread_id)
    with pytest.raises(NotFound, match="no checkpoint for thread"):
        store.state(thread_id)
    with pytest.raises(NotFound):
        store.field_sizes(thread_id)
    with pytest.raises(NotFound, match="no thread"):
        store.timeline_keys(thread_id)
    with pytest.raises(NotFound, match="no thread"):
        list(store.iter_states(thread_id))
    with pytest.raises(NotFound, match="no thread"):
        list(store.iter_field_sizes(thread_id))
    assert store.checkpoint_rows(thread_id, [("", "1f000000-0000-6000-8000-000000000000")]) == []
    with pytest.raises(NotFound, match="no checkpoint '1f000000-0000-6000-8000-000000000000'"):
        store.state("demo-research", "1f000000-0000-6000-8000-000000000000")
    with pytest.raises(NotFound, match="in namespace 'nowhere:1'"):
        store.state("demo-research", None, "nowhere:1")
    assert len(store.threads()) == len(DEMO_THREADS)  # nothing was dropped by the odd ids


# -- store-wide orders, keys-only timelines and streams ------------------------------------------


@pytest.mark.parametrize("sort, key", [("stored", lambda t: (-t.stored_bytes, t.thread_id)),
                                       ("checkpoints", lambda t: -t.checkpoints)])
def test_thread_orders_are_over_every_thread(backend, sort, key):
    """A sorted page is a slice of every thread in that order, not one page re-sorted."""
    store, _ = backend
    everything = sorted(store.threads(limit=100), key=key)
    ranked = store.threads(limit=100, sort=sort)
    assert [key(t) for t in ranked] == [key(t) for t in everything]
    assert {t.thread_id: t for t in ranked} == {t.thread_id: t for t in everything}  # the same summaries
    assert store.threads(limit=3, offset=2, sort=sort) == ranked[2:5]
    assert [t.thread_id for t in store.threads(search="vision", sort=sort)] == ["demo-vision"]
    with pytest.raises(StoreError, match="unknown thread order"):
        store.threads(sort="size; DROP TABLE checkpoints")


def test_timeline_keys_lay_out_the_same_history(backend):
    store, _ = backend
    for thread_id in ("demo-subgraph", "demo-time-travel", "demo-research"):
        full = store.timeline(thread_id)
        keys = store.timeline_keys(thread_id)
        assert [(r.checkpoint_ns, r.checkpoint_id, r.parent_checkpoint_id) for r in keys] == \
            [(r.checkpoint_ns, r.checkpoint_id, r.parent_checkpoint_id) for r in full]
        for light, row in zip(keys, full):
            assert (light.stored_bytes, light.writes_bytes, light.write_channels, light.step, light.created_at) == \
                (row.stored_bytes, row.writes_bytes, row.write_channels, row.step, row.created_at)
            if light.keys_only:  # only what laying out needs: a subgraph's first checkpoint keeps its parents
                assert light.source is None and set(light.metadata) <= {"parents"}
                if row.checkpoint_ns and not row.parent_checkpoint_id:
                    assert light.metadata["parents"] == row.metadata["parents"]
            else:
                assert light == row
        newest_three = {r.checkpoint_id for r in full[:3]}
        assert {r.checkpoint_id for r in store.timeline_keys(thread_id, after=full[3].checkpoint_id)} == newest_three
        assert store.timeline_keys(thread_id, after=full[0].checkpoint_id) == []


def test_checkpoint_rows_read_one_page_with_metadata(backend):
    store, _ = backend
    full = store.timeline("demo-subgraph")
    page = full[2:9]
    assert store.checkpoint_rows("demo-subgraph", [(r.checkpoint_ns, r.checkpoint_id) for r in reversed(page)]) == page
    assert store.checkpoint_rows("demo-subgraph", []) == []


def comparable(state, base: Path) -> dict:
    return {"values": normal(state.values, base), "metadata": state.metadata, "writes": state.writes,
            "parent": state.parent_checkpoint_id, "rebuilt": state.rebuilt_channels,
            "bytes": (state.stored_bytes, state.channel_bytes), "problems": state.problems}


@pytest.mark.parametrize("thread_id", ["demo-delta", "demo-time-travel", "demo-vision"])
def test_streamed_states_equal_states_read_one_by_one(backend, thread_id, monkeypatch):
    """Small batches, so the stream crosses batch boundaries; delta channels rebuilt from the carried parent."""
    import inspector.store.records as records

    monkeypatch.setattr(records, "BATCH_ROWS", 3)
    store, base = backend
    rows = sorted((r for r in store.timeline(thread_id) if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id)
    streamed = list(store.iter_states(thread_id))
    assert [s.checkpoint_id for s in streamed] == [r.checkpoint_id for r in rows]
    for state in streamed:
        assert comparable(state, base) == comparable(store.state(thread_id, state.checkpoint_id), base)
    some = [r.checkpoint_id for r in rows[1::3]]
    picked = list(store.iter_states(thread_id, checkpoint_ids=some, channels=["messages", "viewed_images"]))
    assert [s.checkpoint_id for s in picked] == some
    for state in picked:
        whole = store.state(thread_id, state.checkpoint_id)
        assert set(state.values) <= {"messages", "viewed_images"}
        assert state.values == {k: v for k, v in whole.values.items() if k in ("messages", "viewed_images")}
        assert state.stored_bytes == whole.stored_bytes


def test_streamed_subgraph_states(backend):
    store, _ = backend
    rows = [r for r in store.timeline("demo-subgraph") if r.checkpoint_ns]
    ns = rows[0].checkpoint_ns
    streamed = list(store.iter_states("demo-subgraph", ns))
    assert [s.checkpoint_id for s in streamed] == sorted(r.checkpoint_id for r in rows if r.checkpoint_ns == ns)
    assert [s.values for s in streamed] == [store.state("demo-subgraph", s.checkpoint_id, ns).values for s in streamed]
    with pytest.raises(NotFound, match="no checkpoints in namespace"):
        list(store.iter_states("demo-subgraph", "nowhere:1"))


@pytest.mark.parametrize("thread_id", ["demo-bloated", "demo-subgraph"])
def test_streamed_sizes_equal_field_sizes(backend, thread_id, monkeypatch):
    import inspector.store.records as records

    monkeypatch.setattr(records, "BATCH_ROWS", 2)
    store, _ = backend
    every = store.field_sizes(thread_id, None)
    assert list(store.iter_field_sizes(thread_id, None)) == every
    assert list(store.iter_field_sizes(thread_id, "")) == [r for r in every if r.checkpoint_ns == ""]
    some = {(r.checkpoint_ns, r.checkpoint_id) for r in every[::3]}
    assert list(store.iter_field_sizes(thread_id, None, keys=some)) == [
        r for r in every if (r.checkpoint_ns, r.checkpoint_id) in some]


def test_totals_add_up_every_thread(backend):
    store, _ = backend
    every = store.threads(limit=1000)
    totals = store.totals()
    assert (totals.threads, totals.checkpoints, totals.stored_bytes) == (
        len(every), sum(t.checkpoints for t in every), sum(t.stored_bytes for t in every))


def test_history_pages_and_filters_like_the_timeline(backend):
    """``history`` is the timeline cut by namespace, cursor, limit and metadata, with the same rows."""
    store, _ = backend
    everything = store.timeline("demo-subgraph")
    assert store.history("demo-subgraph", None) == everything
    root = [r for r in everything if r.checkpoint_ns == ""]
    assert store.history("demo-subgraph") == root and len(root) < len(everything)
    nested = next(r.checkpoint_ns for r in everything if r.checkpoint_ns)
    assert store.history("demo-subgraph", nested) == [r for r in everything if r.checkpoint_ns == nested]

    rows = store.timeline("demo-research")
    first = store.history("demo-research", limit=4)
    second = store.history("demo-research", before=first[-1].checkpoint_id, limit=4)
    assert first + second == rows[:8]  # sizes and write channels of a page equal the timeline's
    assert store.history("demo-research", before=rows[0].checkpoint_id) == rows[1:]
    assert store.history("demo-research", limit=0) == []

    inputs = store.history("demo-research", filter={"source": "input"})
    assert inputs == [r for r in rows if r.source == "input"] and 1 < len(inputs) < len(rows)
    assert store.history("demo-research", filter={"source": "loop", "step": 3}) == [
        r for r in rows if (r.source, r.step) == ("loop", 3)] != []
    assert store.history("demo-research", filter={"parents": {}}, limit=3) == rows[:3]
    assert store.history("demo-research", filter={"step": "3"}) == []  # a string is not the number 3
    assert store.history("demo-research", filter={"source": "nowhere"}) == []
    assert store.history("no-such-thread", None) == []


def test_delta_history_is_what_the_rebuilt_value_folds(backend, reference):
    """The seed and ordered writes ``delta_history`` names fold to the value ``state`` shows."""
    from inspector.store import NotFound
    from inspector.store.delta import fold_histories

    store, base = backend
    ref, ref_base = reference
    checked = seeded = writes = 0
    for cid, ref_cid in zip(root_ids(store, "demo-delta"), root_ids(ref, "demo-delta")):
        state = store.state("demo-delta", cid)
        if "messages" not in state.rebuilt_channels:
            continue
        found = store.delta_history("demo-delta", cid, ["messages"])
        seeded += found["messages"].has_seed  # before the first snapshot the walk reaches the root
        writes += len(found["messages"].writes)
        assert fold_histories(found).values["messages"] == state.values["messages"]
        theirs = ref.delta_history("demo-delta", ref_cid, ["messages"])["messages"]
        assert normal([w.value for w in found["messages"].writes], base) == normal(
            [w.value for w in theirs.writes], ref_base)
        checked += 1
    assert checked > seeded > 0 and writes > checked
    assert store.delta_history("demo-delta", cid, []) == {}
    with pytest.raises(NotFound):
        store.delta_history("demo-delta", "1f000000-0000-6000-8000-000000000000", ["messages"])


@pytest.mark.parametrize("bad", [{"source": object()}, {("source",): "loop"}])
def test_a_filter_that_is_not_json_is_refused_in_one_line(backend, bad):
    from inspector.store import StoreError

    store, _ = backend
    if store.kind == "saver":
        pytest.skip("a saver applies its own filter")
    with pytest.raises(StoreError, match="metadata filter"):
        store.history("demo-research", filter=bad)


@pytest.mark.parametrize("thread_id", ["demo-research", "demo-interrupt", "demo-delta"])
def test_streamed_writes_equal_the_writes_of_each_state(backend, thread_id, monkeypatch):
    import inspector.store.records as records

    monkeypatch.setattr(records, "BATCH_ROWS", 2)
    store, base = backend
    streamed = dict(store.iter_writes(thread_id))
    states = {s.checkpoint_id: s for s in store.iter_states(thread_id)}
    assert streamed == {cid: s.writes for cid, s in states.items() if s.writes}
    some = list(streamed)[::2]
    assert dict(store.iter_writes(thread_id, checkpoint_ids=some)) == {cid: streamed[cid] for cid in some}
    assert list(store.iter_writes(thread_id, "nowhere:1")) == []
