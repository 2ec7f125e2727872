"""Memory stores written by LangGraph's own ``SqliteStore`` and ``PostgresStore``, beside checkpoints its savers wrote.

``write_sqlite_memory(path)`` runs a one-node graph with ``SqliteSaver`` (thread ``WRITER_THREAD``) and then puts
items with ``SqliteStore`` into the same file: namespaces three deep, a TTL config (an item whose TTL has passed,
one without a TTL), and an ``index`` config whose embedding function is ``embed`` (a hash to 8 floats: no model).
This Python's ``sqlite3`` is built without loadable extensions, which ``SqliteStore.setup()`` needs for sqlite-vec:
``VecConnection`` reaches the same C library's ``sqlite3_enable_load_extension`` / ``sqlite3_load_extension`` so the
real extension loads and LangGraph's own vector search runs over the rows. ``write_postgres_memory(dsn)`` does the
same with ``PostgresSaver`` and ``PostgresStore`` (TTL, no index: this machine's PostgreSQL has no pgvector).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

DIMS = 8
WRITER_THREAD = "memory-writer-thread"
SECRET = "sk-proj-Mem0ryS3cretKeyAbCdEf0123456789xyzQ"  # a fake key planted in an item's value
FAR_TTL = 600.0  # minutes
GONE_TTL = 0.001  # minutes: expired by the time the test reads it

ITEMS: list[tuple[tuple[str, ...], str, dict[str, Any], dict[str, Any]]] = [
    # namespace, key, value, put options
    (("users", "alice", "memories"), "tea", {"text": "Alice likes green tea", "thread_id": WRITER_THREAD}, {}),
    (("users", "alice", "memories"), "key", {"text": f"her key is {SECRET}", "api_key": SECRET},
     {"ttl": GONE_TTL}),
    (("users", "alice", "memories"), "city", {"text": "Lives in Lisbon", "metadata": {"thread_id": "t-not-stored"}},
     {"ttl": FAR_TTL}),
    (("users", "alice", "profile"), "name", {"text": "Alice", "tags": ["a", "b", "c"]}, {"index": False}),
    (("users", "bob", "memories"), "pets", {"text": "Bob has two cats"}, {"ttl": None}),
    (("org",), "policy", {"text": "Answer in English", "rules": {"tone": "plain"}}, {"ttl": None, "index": False}),
]


def embed(texts: list[str]) -> list[list[float]]:
    """A deterministic embedding: the first ``DIMS`` bytes of each text's SHA-256, scaled to [0, 1]."""
    return [[b / 255 for b in hashlib.sha256(t.encode()).digest()[:DIMS]] for t in texts]


def _sqlite_library() -> ctypes.CDLL:
    sqlite3.connect(":memory:").close()  # the library _sqlite3 uses is loaded: find it among the process's maps
    with open("/proc/self/maps") as maps:
        paths = sorted({line.split()[-1] for line in maps if "libsqlite3" in line})
    lib = ctypes.CDLL(paths[0] if paths else ctypes.util.find_library("sqlite3"))
    lib.sqlite3_enable_load_extension.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.sqlite3_load_extension.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.POINTER(ctypes.c_char_p)]
    return lib


class VecConnection(sqlite3.Connection):
    """A connection that can load sqlite-vec where this Python's ``sqlite3`` cannot (``SqliteStore.setup()`` calls
    ``enable_load_extension`` and ``sqlite_vec.load`` calls ``load_extension``): both go to the C library itself."""

    _lib: ctypes.CDLL | None = None

    def _handle(self) -> ctypes.c_void_p:
        return ctypes.c_void_p.from_address(id(self) + object.__basicsize__)  # pysqlite_Connection's ``db``

    def _library(self) -> ctypes.CDLL:
        if VecConnection._lib is None:
            VecConnection._lib = _sqlite_library()
        return VecConnection._lib

    def enable_load_extension(self, enabled: bool) -> None:
        if self._library().sqlite3_enable_load_extension(self._handle(), int(bool(enabled))):
            raise sqlite3.OperationalError("enable_load_extension failed")

    def load_extension(self, path: str, *, entrypoint: str | None = None) -> None:
        error = ctypes.c_char_p()
        if self._library().sqlite3_load_extension(self._handle(), path.encode(),
                                                  entrypoint.encode() if entrypoint else None, ctypes.byref(error)):
            raise sqlite3.OperationalError((error.value or b"load_extension failed").decode())


class _State(TypedDict, total=False):
    note: str


def run_writer_thread(saver: Any, thread_id: str = WRITER_THREAD) -> None:
    """A one-node graph run with ``saver``: a thread in the checkpoint tables for items to name."""
    graph = StateGraph(_State)
    graph.add_node("remember", lambda state: {"note": "remembered"})
    graph.add_edge(START, "remember")
    graph.add_edge("remember", END)
    graph.compile(checkpointer=saver).invoke({"note": "hi"}, {"configurable": {"thread_id": thread_id}})


@dataclass
class Written:
    """What a writer put: the items by (namespace, key), and the vector search LangGraph itself ran over them."""

    path: Path | None = None
    dsn: str | None = None
    items: dict[tuple[tuple[str, ...], str], dict[str, Any]] = field(default_factory=dict)
    searched: list[str] = field(default_factory=list)


def put_items(store: Any, written: Written) -> None:
    for namespace, key, value, options in ITEMS:
        store.put(namespace, key, value, **options)
        written.items[(namespace, key)] = value
    time.sleep(1.1)  # GONE_TTL (60 ms) has passed, and a second more: LangGraph's sweep compares whole seconds


def write_sqlite_memory(path: str | Path, checkpoints: bool = True) -> Written:
    """``path`` holding a thread (``SqliteSaver``) and the memory items (``SqliteStore`` with TTL and an index)."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.store.sqlite import SqliteStore

    path = Path(path)
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, factory=VecConnection)
    try:
        if checkpoints:
            saver = SqliteSaver(conn)
            saver.setup()
            run_writer_thread(saver)
        store = SqliteStore(conn, index={"dims": DIMS, "embed": embed, "text_fields": ["text"]},
                            ttl={"default_ttl": 60.0, "refresh_on_read": False})
        store.setup()
        written = Written(path=path)
        put_items(store, written)
        written.searched = [hit.key for hit in store.search(("users",), query="Alice likes green tea", limit=1)]
    finally:
        conn.close()
    return written


def write_postgres_memory(dsn: str) -> Written:
    """The database ``dsn`` holding a thread (``PostgresSaver``) and the items (``PostgresStore`` with TTL)."""
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore

    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()
        run_writer_thread(saver)
    with PostgresStore.from_conn_string(dsn, ttl={"default_ttl": 60.0, "refresh_on_read": False}) as store:
        store.setup()
        written = Written(dsn=dsn)
        put_items(store, written)
    return written
