"""Text a SQLite store holds that is not UTF-8: read losslessly, spelled without collisions, bound by its bytes."""

from __future__ import annotations

import sqlite3

from inspector.retention.sql import literal
from inspector.store.not_utf8 import decode, from_token, shown, stored_bytes, token
from inspector.store.sqlite.connect import bound, ids_among, read_text

PLANTED = decode(b"victim\xff")
REAL = "victim\\xff"


def test_ids_read_from_bad_bytes_never_meet_a_real_id():
    texts = [PLANTED, REAL, "plain", "caf\u00e9", "~bytes:76696374696dff", "~bytes:zz", decode(b"\xed\xa0\x80")]
    assert len({token(t) for t in texts}) == len(texts)  # one spelling each
    assert all(from_token(token(t)) == t for t in texts)
    assert all(token(t).encode("utf-8") for t in texts)  # every spelling is valid UTF-8
    assert read_text(b"victim\xff") == PLANTED and read_text("caf\u00e9".encode()) == "caf\u00e9"
    assert token("plain") == "plain" and token(PLANTED) == "~bytes:76696374696dff"
    assert stored_bytes(PLANTED) == b"victim\xff" and shown(PLANTED) == "victim\\xff (not UTF-8)" and shown(REAL) == REAL


def test_a_bad_id_is_bound_by_its_bytes_and_nothing_else_changes():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id TEXT, n INTEGER)")
    conn.execute("INSERT INTO t VALUES (CAST(? AS TEXT), 1), (?, 2)", [b"victim\xff", REAL])
    sql = "SELECT n FROM t WHERE id = ? AND '?' = \"?\" -- ?\n AND n > ?"
    assert bound(sql, [REAL, 0]) == (sql, (REAL, 0))
    rewritten, params = bound(sql, [PLANTED, 0])
    assert rewritten.count("CAST(? AS TEXT)") == 1 and params == (b"victim\xff", 0)
    assert conn.execute(rewritten, params).fetchall() == [(1,)]
    among, params = ids_among("id", [PLANTED, REAL])
    assert sorted(conn.execute(*bound(f"SELECT n FROM t WHERE {among}", params)).fetchall()) == [(1,), (2,)]
    assert conn.execute(f"SELECT n FROM t WHERE id = {literal(PLANTED)}").fetchall() == [(1,)]
    assert conn.execute(f"SELECT n FROM t WHERE id = {literal(REAL)}").fetchall() == [(2,)]
