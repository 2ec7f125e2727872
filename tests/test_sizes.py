"""Size accounting on the demo store, checked against LangGraph's own saver and serializer."""

import sqlite3

import msgpack
import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.sizes.accounting import keep_newest_saved, measure_thread, stored_total, thread_sizes
from inspector.sizes.store_sizes import measure_store
from inspector.store import PER_CHECKPOINT_COPY, SHARED_BLOBS, CheckpointSizes, NotFound, open_store
from inspector.store.measure import ChannelSize, ItemSize, digest, measure_checkpoint_blob


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(f"sqlite:///{demo_db}") as s:
        yield s


@pytest.fixture(scope="module")
def saver(demo_db):
    conn = sqlite3.connect(demo_db)
    yield SqliteSaver(conn)
    conn.close()


@pytest.mark.parametrize("thread", ["demo-research", "demo-vision", "demo-bloated", "demo-deerflow-current"])
def test_field_sizes_equal_what_the_serializer_stores(store, saver, thread):
    rows = store.field_sizes(thread)
    assert rows and all(r.checkpoint_ns == "" for r in rows)
    for row in rows:
        config = {"configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": row.checkpoint_id}}
        values = saver.get_tuple(config).checkpoint["channel_values"]
        assert set(values) == set(row.channels)
        for name, value in values.items():
            type_tag, raw = saver.serde.dumps_typed(value)
            expected = len(raw) if type_tag == "msgpack" else len(msgpack.packb(None))
            assert row.channels[name].bytes == expected, (row.checkpoint_id, name)


def test_field_sizes_match_the_decoding_walk_and_the_row_lengths(store, demo_db):
    rows = store.field_sizes("demo-bloated")
    conn = sqlite3.connect(demo_db)
    lengths = dict(conn.execute(
        "SELECT checkpoint_id, length(checkpoint) + length(metadata) FROM checkpoints "
        "WHERE thread_id = 'demo-bloated' AND checkpoint_ns = ''").fetchall())
    for row in rows:
        state = store.state("demo-bloated", row.checkpoint_id)
        assert {k: c.bytes for k, c in row.channels.items()} == state.channel_bytes
        assert row.stored_bytes == lengths[row.checkpoint_id]
        assert sum(c.bytes for c in row.channels.values()) < row.stored_bytes


def test_rows_are_oldest_first_and_cover_every_namespace_on_request(store):
    root = store.field_sizes("demo-subgraph")
    every = store.field_sizes("demo-subgraph", None)
    assert [r.checkpoint_id for r in root] == sorted(r.checkpoint_id for r in root)
    assert {r.checkpoint_ns for r in every} - {""}
    assert len(every) == len(store.timeline("demo-subgraph"))
    with pytest.raises(NotFound):
        store.field_sizes("no-such-thread")


def test_items_are_measured_per_message_and_per_image(store):
    newest = store.field_sizes("demo-bloated")[-1]
    images = newest.channels["viewed_images"]
    assert [i.label for i in images.items] == [f"/mnt/user-data/uploads/scan_{n}.{e}" for n, e in
                                                zip(range(1, 6), ["png", "jpg", "png", "jpg", "png"])]
    assert len({i.digest for i in images.items}) == 5
    assert sum(i.bytes for i in images.items) < images.bytes <= sum(i.bytes for i in images.items) + 5
    state = store.state("demo-bloated", newest.checkpoint_id)
    assert len(newest.channels["messages"].items) == len(state.values["messages"])


def _measured_channel(value: object) -> ChannelSize:
    return measure_checkpoint_blob("msgpack", msgpack.packb({"v": 1, "channel_values": {"c": value}})).channels["c"]


def test_measuring_a_channel_hashes_its_raw_bytes_and_survives_corruption():
    value = {"a": "x" * 100, "b": [1, 2]}
    raw = msgpack.packb(value)
    measured = _measured_channel(value)
    assert measured.bytes == len(raw) and sum(i.bytes for i in measured.items) == len(raw) - 1
    assert [i.label for i in measured.items] == ["a", "b"]
    assert measured.items[0].digest == digest(msgpack.packb("a") + msgpack.packb("x" * 100))
    assert measured.digest == _measured_channel(dict(value)).digest
    assert _measured_channel({"a": "x" * 100, "b": [1, 3]}).digest != measured.digest
    scalar = msgpack.packb("y" * 50)
    assert _measured_channel("y" * 50).digest == digest(scalar) and _measured_channel("y" * 50).items == ()
    truncated = measure_checkpoint_blob("msgpack", msgpack.packb({"v": 1, "channel_values": {"m": [1], "c": value}})[:-3])
    assert list(truncated.channels) == ["m"] and truncated.channels["m"].bytes == len(msgpack.packb([1]))
    broken = measure_checkpoint_blob("msgpack", msgpack.packb({"v": 1, "channel_values": {"m": [1, 2]}})[:-2])
    assert broken.problems and "corrupt" in broken.problems[0].message
    assert measure_checkpoint_blob("pickle", b"...").problems


def test_a_truncated_newest_blob_is_a_problem_not_delta_channels(demo_db, tmp_path, capsys):
    """The channels after a blob's cut are unread: sizes says so, and never calls them delta channels rebuilt from
    writes (the demo's delta-mode thread still is one)."""
    import shutil

    from inspector.cli import main
    from inspector.sizes.tables import rebuilt_note

    copy = tmp_path / "truncated.db"
    shutil.copyfile(demo_db, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, 20) WHERE thread_id = 'demo-research' "
                     "AND checkpoint_ns = '' AND checkpoint_id = (SELECT max(checkpoint_id) FROM checkpoints "
                     "WHERE thread_id = 'demo-research' AND checkpoint_ns = '')")
    with open_store(str(copy)) as opened:
        cut, delta = measure_thread(opened, "demo-research"), measure_thread(opened, "demo-delta")
    assert not [f.field for f in cut.fields if f.rebuilt] and rebuilt_note(cut) is None
    assert any("corrupt or truncated" in p for p in cut.problems)
    assert rebuilt_note(delta) and "messages" in rebuilt_note(delta)
    assert main(["sizes", "--db", str(copy), "demo-research"]) == 0
    out = capsys.readouterr().out
    assert "problem: checkpoint blob is corrupt or truncated" in out and "delta channel" not in out


def test_thread_totals_match_the_database(store, demo_db):
    report = measure_thread(store, "demo-bloated")
    conn = sqlite3.connect(demo_db)
    blobs = conn.execute("SELECT sum(length(checkpoint) + length(metadata)) FROM checkpoints "
                         "WHERE thread_id = 'demo-bloated'").fetchone()[0]
    writes = conn.execute("SELECT sum(length(value)) FROM writes WHERE thread_id = 'demo-bloated'").fetchone()[0]
    assert report.accounting == PER_CHECKPOINT_COPY
    assert report.stored_bytes == blobs + writes and report.writes_bytes == writes
    assert report.growth_bytes == report.checkpoints[-1].total_bytes - report.checkpoints[0].total_bytes > 1_000_000
    images = report.field("viewed_images")
    newest_images = store.state("demo-bloated").channel_bytes["viewed_images"]
    # each image is stored at many checkpoints: the repeats are everything but one copy of each
    assert images.unique_bytes == pytest.approx(newest_images, abs=16)
    assert images.repeated_bytes == images.stored_bytes - images.unique_bytes > 5 * newest_images
    assert report.what_if.viewed_images_repeated_bytes == images.repeated_bytes
    assert report.fields[0].field == "viewed_images"


def test_keep_newest_estimate(store):
    rows = store.field_sizes("demo-research")
    total = stored_total(rows)
    assert keep_newest_saved(rows, len(rows)) == 0
    assert keep_newest_saved(rows, 0) == total
    newest = rows[-1]
    assert keep_newest_saved(rows, 1) == total - newest.stored_bytes - newest.writes_bytes


def test_store_ranks_threads_and_sums_fields(store):
    report = measure_store(store)
    bytes_ranked = [t.stored_bytes for t in report.threads]
    assert bytes_ranked == sorted(bytes_ranked, reverse=True)
    assert report.threads[0].thread_id in {"demo-bloated", "demo-long"}
    assert report.stored_bytes == sum(bytes_ranked)
    assert report.fields["messages"] == sum(t.field("messages").stored_bytes for t in report.threads if t.field("messages"))
    assert set(report.fields) >= {"messages", "viewed_images", "todos"}


def _row(cid, channels, parent=None):
    return CheckpointSizes("t", "", cid, parent, None, None, 10, 0, channels)


def test_shared_blobs_count_each_row_once():
    big = ChannelSize(1000, "d1", (ItemSize("0", 990, "i1"),), blob_key="messages:1")
    bigger = ChannelSize(1500, "d2", (ItemSize("0", 990, "i1"), ItemSize("1", 500, "i2")), blob_key="messages:2")
    rows = [_row("1", {"messages": big}), _row("2", {"messages": big}), _row("3", {"messages": bigger})]
    shared = thread_sizes("t", rows, SHARED_BLOBS)
    copied = thread_sizes("t", rows, PER_CHECKPOINT_COPY)
    assert shared.stored_bytes == 30 + 1000 + 1500
    assert copied.stored_bytes == 30  # a copied checkpoint's row length already holds its channels
    assert shared.field("messages").stored_bytes == 2500 and copied.field("messages").stored_bytes == 3500
    assert shared.field("messages").unique_bytes == 990 + 500 + 10 + 10
    assert copied.field("messages").repeated_bytes == 3500 - 1510


def test_measuring_decodes_nothing_and_reads_each_blob_once(store, monkeypatch):
    import inspector.store.checkpoint_blob as checkpoint_blob
    import inspector.store.decode as decode
    import inspector.store.sqlite.sizes as sqlite_module

    decoded, measured = [], []
    real_unpack, real_measure = decode.unpack_msgpack, sqlite_module.measure_checkpoint_blob
    for module in (decode, checkpoint_blob):  # the decoder, and a checkpoint blob taken apart with it
        monkeypatch.setattr(module, "unpack_msgpack", lambda *a: decoded.append(a) or real_unpack(*a))
    monkeypatch.setattr(sqlite_module, "measure_checkpoint_blob", lambda *a: measured.append(a[1]) or real_measure(*a))
    report = measure_thread(store, "demo-long")
    assert len(measured) == len(store.timeline("demo-long")) == len(set(measured))
    assert decoded == []
    assert len(report.checkpoints) == len(measured)
    store.state("demo-long")  # the spy sees real decoding
    assert decoded
