"""The second half of the store contract (``store_contract.py``): store-wide orders, keys-only timelines,
pages of history and streams agree with what the same backend reads one by one."""

from __future__ import annotations

import pytest
from store_contract import Contract, comparable, normal, root_ids

from inspector.store import NotFound, StoreError


class StreamContract(Contract):
    """Store-wide orders, keys-only timelines and streams."""

    @pytest.mark.parametrize("sort, key", [("stored", lambda t: (-t.stored_bytes, t.thread_id)),
                                           ("checkpoints", lambda t: -t.checkpoints)])
    def test_thread_orders_are_over_every_thread(self, backend, sort, key):
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

    def test_timeline_keys_lay_out_the_same_history(self, backend):
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
            after_fourth = store.timeline_keys(thread_id, after=full[3].checkpoint_id)
            assert {r.checkpoint_id for r in after_fourth} == newest_three
            assert store.timeline_keys(thread_id, after=full[0].checkpoint_id) == []

    def test_checkpoint_rows_read_one_page_with_metadata(self, backend):
        store, _ = backend
        full = store.timeline("demo-subgraph")
        page = full[2:9]
        keys = [(r.checkpoint_ns, r.checkpoint_id) for r in reversed(page)]
        assert store.checkpoint_rows("demo-subgraph", keys) == page
        assert store.checkpoint_rows("demo-subgraph", []) == []

    @pytest.mark.parametrize("thread_id", ["demo-delta", "demo-time-travel", "demo-vision"])
    def test_streamed_states_equal_states_read_one_by_one(self, backend, thread_id, monkeypatch):
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

    def test_streamed_subgraph_states(self, backend):
        store, _ = backend
        rows = [r for r in store.timeline("demo-subgraph") if r.checkpoint_ns]
        ns = rows[0].checkpoint_ns
        streamed = list(store.iter_states("demo-subgraph", ns))
        assert [s.checkpoint_id for s in streamed] == sorted(r.checkpoint_id for r in rows if r.checkpoint_ns == ns)
        assert [s.values for s in streamed] == [
            store.state("demo-subgraph", s.checkpoint_id, ns).values for s in streamed]
        with pytest.raises(NotFound, match="no checkpoints in namespace"):
            list(store.iter_states("demo-subgraph", "nowhere:1"))

    @pytest.mark.parametrize("thread_id", ["demo-bloated", "demo-subgraph"])
    def test_streamed_sizes_equal_field_sizes(self, backend, thread_id, monkeypatch):
        import inspector.store.records as records

        monkeypatch.setattr(records, "BATCH_ROWS", 2)
        store, _ = backend
        every = store.field_sizes(thread_id, None)
        assert list(store.iter_field_sizes(thread_id, None)) == every
        assert list(store.iter_field_sizes(thread_id, "")) == [r for r in every if r.checkpoint_ns == ""]
        some = {(r.checkpoint_ns, r.checkpoint_id) for r in every[::3]}
        assert list(store.iter_field_sizes(thread_id, None, keys=some)) == [
            r for r in every if (r.checkpoint_ns, r.checkpoint_id) in some]

    def test_totals_add_up_every_thread(self, backend):
        store, _ = backend
        every = store.threads(limit=1000)
        totals = store.totals()
        assert (totals.threads, totals.checkpoints, totals.stored_bytes) == (
            len(every), sum(t.checkpoints for t in every), sum(t.stored_bytes for t in every))

    def test_history_pages_and_filters_like_the_timeline(self, backend):
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

    def test_delta_history_is_what_the_rebuilt_value_folds(self, backend, reference):
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
    def test_a_filter_that_is_not_json_is_refused_in_one_line(self, backend, bad):
        from inspector.store import StoreError

        store, _ = backend
        if store.kind == "saver":
            pytest.skip("a saver applies its own filter")
        with pytest.raises(StoreError, match="metadata filter"):
            store.history("demo-research", filter=bad)

    @pytest.mark.parametrize("thread_id", ["demo-research", "demo-interrupt", "demo-delta"])
    def test_streamed_writes_equal_the_writes_of_each_state(self, backend, thread_id, monkeypatch):
        import inspector.store.records as records

        monkeypatch.setattr(records, "BATCH_ROWS", 2)
        store, base = backend
        streamed = dict(store.iter_writes(thread_id))
        states = {s.checkpoint_id: s for s in store.iter_states(thread_id)}
        assert streamed == {cid: s.writes for cid, s in states.items() if s.writes}
        some = list(streamed)[::2]
        assert dict(store.iter_writes(thread_id, checkpoint_ids=some)) == {cid: streamed[cid] for cid in some}
        assert list(store.iter_writes(thread_id, "nowhere:1")) == []
