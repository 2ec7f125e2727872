"""One contract for every store backend, on the same demo threads written by LangGraph's own savers.

Not collected itself: a backend opts in with a short ``test_store_contract_<backend>.py`` whose
``Test...`` class derives from ``ReadContract`` (here) and ``StreamContract``
(``store_contract_streams.py``) and provides the ``backend`` fixture, ``(store, thread-folder base)``,
and ``KEEPS_METADATA_WRITES``. Backends: SQLite (direct SQL), PostgreSQL (direct SQL, as the read-only
role), and the saver adapter over InMemorySaver and over PostgresSaver; only the PostgreSQL ones need
a PostgreSQL server. SQLite is the reference; every backend must list the same threads, the same
timelines and the same decoded states.

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
  wrote there. Metadata is compared without it, and each backend says whether it keeps it.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from inspector.demo import DEMO_THREADS
from inspector.store import NotFound, open_store
from inspector.store_ops import operating

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b")
SAMPLED = {"demo-long": 12}  # long threads: compare the first and last checkpoints only


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


def comparable(state, base: Path) -> dict:
    return {"values": normal(state.values, base), "metadata": state.metadata, "writes": state.writes,
            "parent": state.parent_checkpoint_id, "rebuilt": state.rebuilt_channels,
            "bytes": (state.stored_bytes, state.channel_bytes), "problems": state.problems}


class Contract:
    """What every contract class shares: the SQLite reference. Subclasses provide the ``backend`` fixture."""

    KEEPS_METADATA_WRITES: bool  # whether the backend's saver keeps the ``writes`` key of checkpoint metadata

    @pytest.fixture(scope="class")
    @classmethod
    def reference(cls, demo_db, demo_dir):
        with open_store(f"sqlite:///{demo_db}") as store:
            yield store, demo_dir


class ReadContract(Contract):
    """Threads, timelines, states, diffs, sizes and health read from the backend agree with SQLite's."""

    def test_same_threads_and_titles(self, backend, reference):
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

    def test_search_metadata_returns_the_matching_checkpoints_metadata(self, backend, reference):
        """What the thread list checks a search against: the same checkpoints' metadata as SQLite's."""
        store, _ = backend
        ref, _ = reference
        ids = ["demo-research", "demo-vision", "no-such-thread"]
        newest = dict(store.search_metadata("LOOP", ids, newest_only=True))
        assert newest == dict(ref.search_metadata("LOOP", ids, newest_only=True))
        assert set(newest) == {"demo-research", "demo-vision"}
        for tid in newest:
            loops = [r for r in store.timeline(tid) if r.metadata.get("source") == "loop"]
            assert newest[tid] == max(loops, key=lambda r: r.checkpoint_id).metadata
        every = store.search_metadata("loop", ids)
        assert sorted(tid for tid, _ in every) == sorted(tid for tid, _ in ref.search_metadata("loop", ids))
        assert len(every) == sum(r.metadata.get("source") == "loop" for tid in newest for r in store.timeline(tid))
        assert store.search_metadata("loop", []) == [] and store.search_metadata("%", ids) == []
        # without ids: one row for each thread the store's search matches, by id or by metadata
        everywhere = dict(store.search_metadata("vision", newest_only=True))
        assert set(everywhere) == {t.thread_id for t in store.threads(search="vision", limit=100)}

    def test_titles_and_checkpoint_ids_the_search_matches(self, backend, reference):
        """The thread list's title column and checkpoint ids, as the search matches them, equal SQLite's."""
        store, _ = backend
        ref, _ = reference
        titles = store.thread_titles()
        assert titles == ref.thread_titles()
        listed = {t.thread_id: t.title for t in store.threads(limit=100)}
        assert titles == {tid: title for tid, title in listed.items() if title}
        middle = store.timeline("demo-vision")[3].checkpoint_id
        assert store.checkpoint_id_threads(middle) == {"demo-vision"}
        assert store.checkpoint_id_threads(middle[:8].upper()) >= {"demo-vision"}  # any case, a substring
        assert store.checkpoint_id_threads("%") == set() and store.checkpoint_id_threads("no-such-id") == set()

    def test_heads_newest_writes_and_ids_the_search_and_status_read(self, backend, reference):
        """What the search index and the threads' status read from keys alone: the same on every backend."""
        from inspector.threads.thread_status import state_of

        store, _ = backend
        ref, _ = reference
        heads, ref_heads = store.thread_heads(None), ref.thread_heads(None)
        assert {t: n for t, (_, n) in heads.threads.items()} == {t: n for t, (_, n) in ref_heads.threads.items()}
        assert heads.rows == ref_heads.rows == sum(n for _, n in heads.threads.values())
        vision = store.timeline("demo-vision")
        assert heads.threads["demo-vision"][0] == max(r.checkpoint_id for r in vision)
        assert heads.cut == max(h for h, _ in heads.threads.values())
        since = heads.threads["demo-vision"][0]
        assert set(store.thread_heads(since).threads) == {t for t, (h, _) in heads.threads.items() if h > since}
        ids = ["demo-research", "demo-vision", "no-such-thread"]
        newest = store.newest_write_keys(ids)
        assert set(newest) == {"demo-research", "demo-vision"}
        for tid, (cid, keys) in newest.items():
            assert cid == max(r.checkpoint_id for r in store.timeline(tid) if r.checkpoint_ns == "")
            held = store.write_keys(tid, [("", cid)]).get(("", cid), [])
            assert [(k.channel, k.task_id) for k in keys] == [(k.channel, k.task_id) for k in held]
        every, ref_every = store.newest_write_keys(None), ref.newest_write_keys(None)
        assert {t: state_of(k) for t, (_, k) in every.items()} == {t: state_of(k) for t, (_, k) in ref_every.items()}
        assert store.newest_write_keys([]) == {}
        assert store.id_threads(vision[3].checkpoint_id) == {"demo-vision"}
        assert store.id_threads("VISION") == ref.id_threads("VISION") >= {"demo-vision"}
        assert store.id_threads("%") == set()
        only = ["demo-vision", "demo-research", "no-such-thread"]
        assert {t.thread_id for t in store.threads(limit=10, only=only)} == {"demo-vision", "demo-research"}
        assert store.count_threads(only=only) == 2 and store.threads(only=[]) == []

    def test_postgres_savers_drop_the_metadata_writes_key(self, backend):
        """What DeerFlow's put checkpoints record in ``writes`` survives only where the saver keeps it."""
        store, _ = backend
        kept = any("writes" in r.metadata for r in store.timeline("demo-deerflow-current"))
        assert kept is self.KEEPS_METADATA_WRITES

    def test_same_kinds_and_branch_links(self, backend, reference):
        """DeerFlow's own checkpoints are named and branches linked on every backend (where ``writes`` is dropped,
        goal writes are named as plain puts)."""
        from inspector.history.checkpoint_kinds import branch_origin, kind_at
        from inspector.history.lineage import build_history

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

    def test_same_timelines(self, backend, reference):
        assert timeline_shape(backend[0]) == timeline_shape(reference[0])

    @pytest.mark.parametrize("thread_id", DEMO_THREADS)
    def test_same_decoded_states(self, backend, reference, thread_id):
        store, base = backend
        ref, ref_base = reference
        mine, theirs = root_ids(store, thread_id), root_ids(ref, thread_id)
        assert len(mine) == len(theirs)
        for cid, ref_cid in zip(mine, theirs):
            assert comparable_state(store, base, thread_id, cid) == \
                comparable_state(ref, ref_base, thread_id, ref_cid), cid

    def test_same_checkpoint_shapes_and_profiles(self, backend, reference):
        """What each thread's newest root checkpoint holds, read from its stored bytes, and the profile chosen
        from it (the demo names no store file: every backend must choose alike from the data)."""
        from inspector.profiles import reading_for

        def holdings(store):
            newest = {t: max(r.checkpoint_id for r in store.timeline(t) if r.checkpoint_ns == "") for t in DEMO_THREADS}
            found = store.checkpoint_shapes([(t, "", cid) for t, cid in newest.items()])
            return {t: {n: s.describe() for n, s in found[(t, "", cid)].shapes.items()} for t, cid in newest.items()}

        mine, theirs = holdings(backend[0]), holdings(reference[0])
        for thread_id in DEMO_THREADS:  # a delta channel may be held by one backend's newest checkpoint only
            common = set(mine[thread_id]) & set(theirs[thread_id])
            assert common and {n: mine[thread_id][n] for n in common} == {n: theirs[thread_id][n] for n in common}
        chosen = {t: reading_for(backend[0], t).name for t in DEMO_THREADS}
        assert chosen == {t: reading_for(reference[0], t).name for t in DEMO_THREADS}

    def test_same_subgraph_states(self, backend, reference):
        def sub_states(store, base):
            rows = [r for r in store.timeline("demo-subgraph") if r.checkpoint_ns]
            rows.sort(key=lambda r: (ns_shape(r.checkpoint_ns), r.checkpoint_id))
            return [normal(store.state("demo-subgraph", r.checkpoint_id, r.checkpoint_ns).values, base) for r in rows]

        mine = sub_states(*backend)
        assert mine and mine == sub_states(*reference)

    def test_delta_channel_is_rebuilt_and_marked(self, backend):
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

    def test_delta_sizes_count_what_is_stored(self, backend):
        """A rebuilt channel has no stored bytes at that checkpoint; a snapshot does."""
        store, _ = backend
        states = [store.state("demo-delta", r.checkpoint_id) for r in store.timeline("demo-delta")]
        assert all("messages" not in s.channel_bytes for s in states if "messages" in s.rebuilt_channels)
        assert any(s.channel_bytes.get("messages", 0) > 0 for s in states if "messages" not in s.rebuilt_channels)

    def test_interrupt_write_is_pending_on_the_newest_root_checkpoint(self, backend):
        store, _ = backend
        state = store.state("demo-interrupt")
        interrupts = [w for w in state.writes if w.channel == "__interrupt__"]
        assert interrupts and "?" in str(interrupts[0].value)

    def test_forks_are_visible_from_parent_ids(self, backend):
        store, _ = backend
        children = Counter(r.parent_checkpoint_id for r in store.timeline("demo-time-travel") if r.parent_checkpoint_id)
        assert max(children.values()) >= 2

    @pytest.mark.parametrize("thread_id", ["demo-research", "demo-vision", "demo-time-travel", "demo-delta"])
    def test_same_diffs(self, backend, reference, thread_id):
        mine = diff_shape(*backend, thread_id)
        assert mine and any(mine)
        assert mine == diff_shape(*reference, thread_id)

    @pytest.mark.parametrize("thread_id", ["demo-bloated", "demo-vision", "demo-delta"])
    def test_field_sizes_match_the_decoded_channel_bytes(self, backend, thread_id):
        """Sizes read without decoding agree with the stored sizes a decode reports, checkpoint by checkpoint."""
        store, _ = backend
        rows = store.field_sizes(thread_id, None)
        assert len(rows) == len(store.timeline(thread_id))
        assert [r.checkpoint_id for r in rows] == sorted(r.checkpoint_id for r in rows)
        for row in rows[-6:]:
            state = store.state(thread_id, row.checkpoint_id, row.checkpoint_ns)
            assert {name: c.bytes for name, c in row.channels.items()} == state.channel_bytes

    def test_health_flags_agree(self, backend):
        from inspector.sizes.health import thread_health

        store, _ = backend
        bloated = set(thread_health(store, "demo-bloated").codes())
        assert {"oversized-state", "oversized-field", "uncleared-images"} <= bloated
        assert "uncleared-images" not in thread_health(store, "demo-vision").codes()
        assert store.size_accounting in ("per-checkpoint-copy", "shared-blobs")

    def test_newest_state_sizes_name_the_bloated_thread(self, backend):
        from inspector.store import StoreError

        store, _ = backend
        if store.kind == "saver":
            with pytest.raises(StoreError, match="needs direct access"):
                store.newest_state_sizes(1_000_000)
            return
        sizes = store.newest_state_sizes(1_000_000)
        assert sizes.threads == len(DEMO_THREADS) and sizes.largest_thread == "demo-bloated"
        assert sizes.over >= 1 and sizes.largest_bytes > 1_000_000
        assert store.newest_state_sizes(sizes.largest_bytes).over == 0

    def test_growth_rows_add_up_to_the_totals(self, backend):
        """Every stored byte and checkpoint is in one bucket or counted as not dated; a saver says it cannot."""
        from inspector.store import StoreError
        from inspector.store_ops.growth_rows import CHECKPOINT_KEY

        store, _ = backend
        if store.kind == "saver":
            with pytest.raises(StoreError, match="Growth over time needs direct access"):
                operating(store).growth_rows()
            return
        totals = store.totals()
        found = operating(store).growth_rows(3600)
        assert sum(r.bytes for r in found.rows) + found.untimed_bytes == totals.stored_bytes
        assert sum(r.checkpoints for r in found.rows) + found.untimed_checkpoints == totals.checkpoints
        assert all(r.bucket % 3600 == 0 for r in found.rows)
        assert {r.thread_id for r in found.rows} == {t.thread_id for t in store.threads(limit=1000)}
        assert sum(r.checkpoints for r in found.rows if r.channel != CHECKPOINT_KEY) == 0
        assert (found.stored_bytes, found.checkpoints) == (totals.stored_bytes, totals.checkpoints)
        # grouped by the database: the same bytes per bucket, and the top threads ranked by them
        by_store = operating(store).growth_rows(3600, by="store", top=2)
        buckets = {(r.bucket, r.part) for r in found.rows}
        assert {(r.bucket, r.part): r.bytes for r in by_store.rows} == {
            key: sum(r.bytes for r in found.rows if (r.bucket, r.part) == key) for key in buckets}
        per_thread: dict[str, int] = {}
        for r in found.rows:
            per_thread[r.thread_id] = per_thread.get(r.thread_id, 0) + r.bytes
        assert [g.bytes for g in by_store.top_threads] == sorted(per_thread.values(), reverse=True)[:2]

    def test_fact_identity_names_the_store_and_holds_while_it_is_read(self, backend):
        store, _ = backend
        named = store.fact_identity()
        store.timeline("demo-research")
        assert named.startswith(store.identity) and store.fact_identity() == named

    @pytest.mark.parametrize("thread_id", ["no-such-thread", "a'; DROP TABLE checkpoints; --", "../../etc", "%",
                                           "ünïcode 🧵"])
    def test_unknown_threads_and_checkpoints_are_not_found(self, backend, thread_id):

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


def attribution_shape(store, thread_id: str) -> list:
    """Every checkpoint's attribution (inspector.history.attribution), ids normalised, oldest first."""
    from inspector.history.attribution import attribute_keys
    from inspector.history.lineage import build_history

    history = build_history(store.timeline(thread_id))
    made = attribute_keys(store, history, history.ordered)
    return [(ns_shape(key[0]), made[key].step, made[key].made_by, made[key].label,
             tuple((t.node, t.fields) for t in made[key].tasks)) for key in reversed(history.ordered)]


class WriteKeysContract(Contract):
    """The write keys a backend lists (``Store.write_keys``) and the attribution built on them agree with SQLite's."""

    @pytest.mark.parametrize("thread_id", ["demo-research", "demo-subgraph", "demo-interrupt", "demo-time-travel"])
    def test_write_keys_list_the_timelines_written_channels(self, backend, thread_id):
        store, _ = backend
        rows = store.timeline(thread_id)
        keys = store.write_keys(thread_id, [(r.checkpoint_ns, r.checkpoint_id) for r in rows])
        for row in rows:
            listed = keys.get((row.checkpoint_ns, row.checkpoint_id), [])
            assert tuple(dict.fromkeys(w.channel for w in listed)) == tuple(dict.fromkeys(row.write_channels)) or \
                sorted(set(w.channel for w in listed)) == sorted(set(row.write_channels)), row.checkpoint_id
            assert not any(hasattr(w, "value") for w in listed)
        assert store.write_keys(thread_id, []) == {}
        assert store.write_keys(thread_id, [("", "no-such-checkpoint")]) == {}

    @pytest.mark.parametrize("thread_id", ["demo-research", "demo-subgraph", "demo-interrupt", "demo-time-travel",
                                           "demo-vision"])
    def test_same_attribution(self, backend, reference, thread_id):
        """Same nodes, same fields, step by step. A saver read through its API keeps no task paths: there a
        task is named from what the step before triggered, and left ``task <id>`` where that is not stored."""
        mine, theirs = attribution_shape(backend[0], thread_id), attribution_shape(reference[0], thread_id)
        assert any(tasks for *_, tasks in mine)
        if not getattr(self, "KEEPS_TASK_PATHS", True):
            unnamed = [i for i, (*_, tasks) in enumerate(mine) if any(n.startswith("task ") for n, _ in tasks)]
            assert len(unnamed) <= 1
            mine = [row for i, row in enumerate(mine) if i not in unnamed]
            theirs = [row for i, row in enumerate(theirs) if i not in unnamed]
        assert mine == theirs
