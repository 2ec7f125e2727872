"""The hostile corpus's long-term memory: LangGraph's ``SqliteStore`` tables beside the corpus's checkpoints, holding
what an attacker (or a runaway agent) would put there. No thread of its own: the thread sweeps are untouched; the
Memory page and the ``memory`` command are swept over it by ``tests/test_long_term_memory_hostile.py``.

Written with ``SqliteStore.put`` where LangGraph stores the shape itself; raw SQL only for what it cannot write:

* ``HUGE``: one item of more than a megabyte of JSON (``HUGE_ENTRIES`` small entries), past what the page draws as a tree.
* ``LONG``: an item with one text of ``long_chars`` letters (cut for display, its length said).
* ``DEEP``: an item nested ``DEEP_LEVELS`` dicts deep (LangGraph's orjson writes up to 254), past the depth guard;
  ``DEEPER`` (raw SQL): 100,000 ``[`` as its value.
* ``CONTROL_NS``: a namespace whose labels hold ESC, BEL, an OSC 8 link, RLO and an isolate, and a key with them.
* ``BAD_BYTES_NS`` (raw SQL): a namespace stored as text that is not UTF-8.
* ``RAW``: a value that is no JSON, an expiry that is no time and a TTL that is no number (raw SQL).
* every value carries ``MEMORY_SECRET`` (named like a secret, and shaped like a key in prose).
"""

from __future__ import annotations

from hostile_corpus import Planting, case

MEMORY_SECRET = "sk-proj-H0stileMem0ryKey0123456789abcdefXYZ"
MEMORY_PASSWORD = "mem-hunter2-correct-horse"
HUGE_ENTRIES = 25_000
DEEP_LEVELS = 200
CONTROL_LABEL = "ctl\x1b[2J\x07\x1b]8;;http://evil/\x07link\x1b]8;;\x07"
BIDI_LABEL = "user-\u202eevil\u2066-1234"
CONTROL_NS = ("hostile", CONTROL_LABEL, BIDI_LABEL)
CONTROL_KEY = "key\x1b[31m\r\u202egnp.exe"
HUGE = (("hostile", "huge"), "huge")
LONG = (("hostile", "long"), "long")
DEEP = (("hostile", "deep"), "deep")
DEEPER_PREFIX, DEEPER_KEY = "hostile.deep", "deeper"
BAD_BYTES_PREFIX = b"hostile.bad-\xff\xfe"
RAW_PREFIX = "hostile.raw"
PLAIN = (("hostile", "plain"), "plain")
PLAIN_TEXT = "An ordinary memory beside the hostile ones"


def secret_bits() -> dict[str, str]:
    return {"note": f"the key is {MEMORY_SECRET}", "password": MEMORY_PASSWORD}


def deep_value(levels: int = DEEP_LEVELS) -> dict:
    value: dict = {"bottom": True}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


@case("memory-store", "LangGraph's memory store beside the checkpoints: a huge item, a long text, an item nested "
      "past the depth guard, a namespace and a key of control and bidi characters, a namespace that is not UTF-8, "
      "a value that is no JSON with an expiry that is no time", threads=(), secrets=[MEMORY_SECRET, MEMORY_PASSWORD],
      kept=[PLAIN_TEXT], owner="memory")
def _memory_store(p: Planting) -> None:
    import sqlite3

    from langgraph.store.sqlite import SqliteStore

    p.conn.commit()  # SqliteStore begins its own transactions: it writes through a connection of its own
    own = sqlite3.connect(p.conn.execute("PRAGMA database_list").fetchone()[2], isolation_level=None,
                          check_same_thread=False)
    store = SqliteStore(own)
    store.setup()
    store.put(*PLAIN, {"text": PLAIN_TEXT, **secret_bits()})
    store.put(*HUGE, {"text": "a runaway list", **secret_bits(),
                      "entries": [{"n": n, "note": f"entry {n} of a list nobody trims"} for n in range(HUGE_ENTRIES)]})
    store.put(*LONG, {"text": "x" * p.long_chars, **secret_bits()})
    store.put(*DEEP, {"deep": deep_value(), **secret_bits()})
    store.put(CONTROL_NS, CONTROL_KEY, {"text": f"label {CONTROL_LABEL} {BIDI_LABEL}", **secret_bits()})
    own.close()
    p.sql("INSERT INTO store (prefix, key, value) VALUES (?, ?, ?)", [DEEPER_PREFIX, DEEPER_KEY, "[" * 100_000])
    p.sql("INSERT INTO store (prefix, key, value) VALUES (CAST(? AS TEXT), 'bytes', ?)",
          [BAD_BYTES_PREFIX, '{"text": "in a namespace that is not UTF-8"}'])
    p.sql("INSERT INTO store (prefix, key, value, expires_at, ttl_minutes) VALUES (?, 'not-json', ?, 'soon', 'abc')",
          [RAW_PREFIX, f"not json {{ password={MEMORY_PASSWORD}"])
    p.conn.commit()
