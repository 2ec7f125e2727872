"""The hostile corpus's case aimed at the analysis cache (registered in ``hostile_corpus.CASES``): one thread whose
checkpoint ids are fixed, so that a store written again with other values under the same ids (``write_twin``)
is the "different store at the same place" the cache must not read from stale facts.

``CACHE_THREAD`` holds, in two checkpoints written by ``SqliteSaver.put``: a password under a secret name in a
small map (``config.db_password``), an API key as a whole small value (``notes.memo``), and a small field
(``notes.blob``, ``SMALL_BLOB``). ``write_twin`` writes the same thread, same ids, with other texts in
``notes.blob`` and ``config.filler``: as a SQLite file (a folder's ``hostile-corpus.db``), or through any other
saver with ``put_cache_thread`` (PostgreSQL). A long text moved from one field to the other keeps each
checkpoint's stored length: only the store's identity tells the two apart.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hostile_corpus import DB_NAME, Planting, case
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver, empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver

CACHE_THREAD = "hostile-cache"
DB_PASSWORD = "Wombat-Fake-Pass-42"  # the password a list of five words would guess
API_KEY = "sk-proj-CacheFake0123456789abcdefXYZ"
SMALL_BLOB = "small!"
BIG_BLOB_CHARS = 2_000_000
CHECKPOINTS = ("1ef0c0c0-0000-6000-8000-0000000ca001", "1ef0c0c0-0000-6001-8001-0000000ca002")
KEPT = "deploy the service"


def _values(blob: str, filler: str) -> list[dict]:
    """The thread's two checkpoints, ``notes.blob`` and ``config.filler`` in the second."""
    config = {"region": "eu-west-1", "db_password": DB_PASSWORD}
    first = {"messages": [HumanMessage(KEPT, id="hc-1")], "config": config, "notes": {"memo": API_KEY}}
    second = {"messages": [HumanMessage(KEPT, id="hc-1"), AIMessage("on it", id="hc-2")],
              "config": {**config, "filler": filler}, "notes": {"memo": API_KEY, "blob": blob}}
    return [first, second]


def put_cache_thread(saver: BaseCheckpointSaver, blob: str = SMALL_BLOB, filler: str = "") -> None:
    """``CACHE_THREAD`` through any saver's own ``put``, each checkpoint's channels at a version of their own
    (PostgreSQL keeps one blob per channel version)."""
    parent = None
    for step, (checkpoint_id, values) in enumerate(zip(CHECKPOINTS, _values(blob, filler))):
        checkpoint = empty_checkpoint()
        checkpoint["id"] = checkpoint_id
        checkpoint["channel_values"] = values
        checkpoint["channel_versions"] = {name: step + 1 for name in values}
        configurable = {"thread_id": CACHE_THREAD, "checkpoint_ns": "", **({"checkpoint_id": parent} if parent else {})}
        saved = saver.put({"configurable": configurable}, checkpoint, {"source": "loop", "step": step, "parents": {}},
                          checkpoint["channel_versions"])
        parent = saved["configurable"]["checkpoint_id"]


def write_twin(folder: Path, blob: str = "b" * BIG_BLOB_CHARS, filler: str = "") -> Path:
    """``folder/hostile-corpus.db`` holding only ``CACHE_THREAD``, with these texts in its second checkpoint."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / DB_NAME
    db.unlink(missing_ok=True)
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        put_cache_thread(saver, blob, filler)
        conn.commit()
    finally:
        conn.close()
    return db


@case("cache", "fixed ids; a password under a secret name and a key as a whole value, in small maps (the cache "
      "keeps no fingerprint of either); a twin store writes the same ids with a 2 MB field",
      threads=[CACHE_THREAD], secrets=(DB_PASSWORD, API_KEY), kept=[KEPT], owner="cache")
def _cache(p: Planting) -> None:
    put_cache_thread(p.saver)
