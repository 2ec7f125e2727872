"""Rebuilding delta-mode channels from plain data: the walk, the ordering and the fold."""

from inspector.store import delta
from inspector.store.decode import DELTA_SNAPSHOT_TYPE, OVERWRITE_TYPE


def msg(kind: str, mid: str, text: str) -> dict:
    return {"type": kind, "id": mid, "content": text, "name": None, "additional_kwargs": {},
            "response_metadata": {}}


def test_only_versioned_channels_named_in_the_counters_need_rebuilding():
    versions = {"messages": "3", "title": "2", "__start__": "1"}
    meta = {"counters_since_delta_snapshot": {"messages": [1, 2], "__start__": [0, 1], "todos": [1, 1]}}
    assert delta.channels_to_rebuild(versions, {"title": "x"}, meta) == ["messages"]
    assert delta.channels_to_rebuild(versions, {"messages": []}, meta) == []
    assert delta.channels_to_rebuild(versions, {}, {}) == []


def test_snapshots_are_unwrapped():
    values = {"messages": {"__type__": DELTA_SNAPSHOT_TYPE, "value": [1]}, "title": "t"}
    assert delta.unwrap_snapshots(values) == {"messages": [1], "title": "t"}


def test_rebuild_walks_up_to_the_nearest_snapshot_and_replays_writes_in_order():
    seed = {"__type__": DELTA_SNAPSHOT_TYPE, "value": [msg("human", "h1", "hi")]}
    walked = []

    def ancestors():
        for ancestor in [delta.Ancestor("c3", {}), delta.Ancestor("c2", {}),
                         delta.Ancestor("c1", {"messages": seed}), delta.Ancestor("c0", {"messages": []})]:
            walked.append(ancestor.checkpoint_id)
            yield ancestor

    def writes_on(cids, channels):
        assert sorted(cids) == ["c1", "c2", "c3"] and channels == ["messages"]
        return [  # returned out of order on purpose
            delta.ChannelWrite("c3", "", "t3", 0, "messages", [msg("ai", "a2", "second")]),
            delta.ChannelWrite("c1", "", "t1", 0, "messages", [msg("ai", "a1", "first")]),
            delta.ChannelWrite("c2", "", "t2", 0, "messages", [msg("ai", "a1", "first, edited")]),
            delta.ChannelWrite("c2", "", "t2", 1, "title", "ignored"),
        ]

    rebuilt = delta.rebuild(["messages"], ancestors(), writes_on)
    assert walked == ["c3", "c2", "c1"]  # stops at the snapshot
    assert [(m["id"], m["content"]) for m in rebuilt.values["messages"]] == [
        ("h1", "hi"), ("a1", "first, edited"), ("a2", "second")]
    assert rebuilt.problems == []


def test_no_snapshot_up_to_the_root_starts_empty():
    rebuilt = delta.rebuild(["messages"], iter([delta.Ancestor("c0", {})]),
                            lambda cids, chs: [delta.ChannelWrite("c0", "", "t", 0, "messages", [msg("human", "h", "x")])])
    assert [m["id"] for m in rebuilt.values["messages"]] == ["h"]


def test_fold_with_unknown_reducer_and_overwrite():
    assert delta.fold("notes", ["a"], [["b"], ["c"]])[0] == ["a", "b", "c"]
    assert delta.fold("status", "old", ["new"])[0] == "new"
    overwrite = {"__type__": OVERWRITE_TYPE, "value": {"value": ["z"], "type": "__overwrite__"}}  # as decoded
    assert delta.fold("notes", ["a"], [["b"], overwrite, ["c"]])[0] == ["z", "c"]


def test_fold_honours_overwrite_of_messages_in_every_form():
    kept = [msg("human", "h9", "kept")]
    for overwrite in ({"__type__": OVERWRITE_TYPE, "value": {"value": kept, "type": "__overwrite__"}},
                      {"__overwrite__": kept}, {"type": "__overwrite__", "value": kept}):
        value, problems = delta.fold("messages", [msg("human", "h1", "hi")], [overwrite, [msg("ai", "a1", "yo")]])
        assert [m["id"] for m in value] == ["h9", "a1"] and problems == []


def test_removed_messages_disappear():
    remove = {"type": "remove", "id": "h1", "content": ""}
    value, problems = delta.fold("messages", [msg("human", "h1", "hi"), msg("ai", "a1", "yo")], [[remove]])
    assert [m["id"] for m in value] == ["a1"] and problems == []


def test_rebuilt_fields_say_so_in_their_summary(demo_db):
    from inspector.state.fields import field_summary
    from inspector.store import open_store

    with open_store(str(demo_db)) as store:
        state = store.state("demo-delta")
    assert "rebuilt from deltas" in field_summary("messages", state.values["messages"], state)
    assert "rebuilt from deltas" not in field_summary("title", state.values["title"], state)


def test_passwords_never_reach_the_screen():
    from inspector.store import display_url

    assert display_url("postgresql://ro:s3cret@db:5432/app?schema=x") == "postgresql://ro:***@db:5432/app?schema=x"
    assert display_url("sqlite:////a.db") == "sqlite:////a.db"


def test_fold_honours_overwrite_as_langgraph_stores_it():
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.types import Overwrite

    from inspector.store.decode import decode_typed

    stored = decode_typed(*JsonPlusSerializer().dumps_typed(Overwrite(["z"]))).value
    assert delta.fold("notes", ["a"], [["b"], stored, ["c"]])[0] == ["z", "c"]
    for as_dict in ({"__overwrite__": ["z"]}, {"value": ["z"], "type": "__overwrite__"}):
        assert delta.fold("notes", ["a"], [as_dict, ["c"]])[0] == ["z", "c"]
    assert delta.fold("status", "old", [{"value": "new"}])[0] == {"value": "new"}  # a dict, not an Overwrite


def test_a_store_folds_delta_channels_with_the_schema_it_is_handed(demo_db):
    """``open_store(schema=...)``: the source is called only when a channel is rebuilt, and its reducer folds."""
    from inspector.schema import DEFAULT_SCHEMA
    from inspector.store import open_store

    class LastWriteWins:  # "messages" keeps only its newest write
        def reducer_for(self, channel):
            return (lambda old, new: new) if channel == "messages" else DEFAULT_SCHEMA.reducer_for(channel)

        def starting_value(self, channel):
            return DEFAULT_SCHEMA.starting_value(channel)

    calls = []
    handed_schema = lambda: calls.append(1) or LastWriteWins()  # noqa: E731
    with open_store(str(demo_db)) as default, open_store(str(demo_db), schema=handed_schema) as handed:
        ids = [r.checkpoint_id for r in handed.history("demo-delta")]
        assert calls == []  # listing decodes and folds nothing
        differ = 0
        for cid in ids:
            ours, theirs = handed.state("demo-delta", cid), default.state("demo-delta", cid)
            if "messages" not in ours.rebuilt_channels:
                continue
            found = handed.delta_history("demo-delta", cid, ["messages"])
            assert ours.values["messages"] == delta.fold_histories(found, LastWriteWins()).values["messages"]
            assert theirs.values["messages"] == delta.fold_histories(found, DEFAULT_SCHEMA).values["messages"]
            differ += ours.values["messages"] != theirs.values["messages"]
        assert calls and differ > 0
