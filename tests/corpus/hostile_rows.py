"""The hostile corpus's cases where one row, not a page, is hostile (registered in ``hostile_corpus.CASES``): ids
stored as bytes, numbers no step can be, channels named like secrets. Written by LangGraph's ``SqliteSaver``
through the corpus's ``Planting``; raw SQL plants only what the saver cannot write (ids stored as BLOBs).

* ``BLOB_IDS``: a thread (its id is text) holding a checkpoint whose ``checkpoint_id`` is stored as a BLOB (and
  the writes against it), a child naming it by that BLOB as its ``parent_checkpoint_id``, and a subgraph
  checkpoint whose ``checkpoint_ns`` is a BLOB.
* ``BLOB_THREAD``: a thread whose ``thread_id`` is stored as a BLOB spelling the same characters as ``BLOB_IDS``
  (in SQLite ``'a' = X'61'`` is false: another thread). Its id is ``not_utf8.from_blob``'s text.
* ``HUGE_STEP``: checkpoints whose metadata ``step`` is 2**64, -2**70, 1e999 (infinity) and NaN, as the saver's
  ``json.dumps`` writes them, and a huge integer under another metadata key.
* ``SECRET_CHANNELS``: channels named ``api_key`` and ``db_password`` holding a short text and a number.
"""

from __future__ import annotations

from hostile_corpus import Planting, case
from langchain_core.messages import AIMessage, HumanMessage

from inspector.store.not_utf8 import from_blob

BLOB_IDS = "hostile-blob-ids"
BLOB_THREAD = from_blob(BLOB_IDS.encode())  # the same characters, stored as a BLOB
BLOB_CHECKPOINT = "1f0c0de0-0000-6000-8001-b10bb10bb10b"  # a uuid6's spelling, stored as a BLOB in BLOB_IDS
BLOB_NS = "sub:blob-task"  # stored as a BLOB in BLOB_IDS
BLOB_IDS_TEXT = "a checkpoint of this thread is stored with a BLOB id"
BLOB_THREAD_TEXT = "this whole thread is stored under a BLOB thread id"
HUGE_STEP = "hostile-huge-step"
HUGE_STEPS = (2**64, -(2**70), float("inf"), float("nan"))
SECRET_CHANNELS = "hostile-secret-channels"
API_KEY_VALUE = "apiKeyChannelFake3381"
DB_PASSWORD_VALUE = 73309914  # a number under a secret name: masked like any value there
ROWS_CASES = ("blob-ids", "huge-step", "secret-channels")


@case("blob-ids", "a thread id, a checkpoint id (and a parent naming it) and a namespace stored as BLOBs (raw SQL)",
      threads=[BLOB_IDS, BLOB_THREAD], kept=[BLOB_IDS_TEXT, BLOB_THREAD_TEXT], owner="rows")
def _blob_ids(p: Planting) -> None:
    first = p.put(BLOB_IDS, {"messages": [HumanMessage(BLOB_IDS_TEXT, id="bi-1")], "title": "blob ids inside"})
    p.put(BLOB_IDS, {"messages": [HumanMessage(BLOB_IDS_TEXT, id="bi-1")], "title": "blob checkpoint"},
          checkpoint_id=BLOB_CHECKPOINT, parent=first, writes=[("title", "after the blob checkpoint")])
    p.put(BLOB_IDS, {"messages": [HumanMessage(BLOB_IDS_TEXT, id="bi-1")], "title": "after the blob checkpoint"},
          parent=BLOB_CHECKPOINT)
    p.put(BLOB_IDS, {"title": "inside a blob namespace"}, ns=BLOB_NS, writes=[("title", "blob namespace write")])
    for table, column in (("checkpoints", "checkpoint_id"), ("writes", "checkpoint_id"),
                          ("checkpoints", "parent_checkpoint_id")):
        p.sql(f"UPDATE {table} SET {column} = CAST({column} AS BLOB) WHERE thread_id = ? AND {column} = ?",
              [BLOB_IDS, BLOB_CHECKPOINT])
    for table in ("checkpoints", "writes"):
        p.sql(f"UPDATE {table} SET checkpoint_ns = CAST(checkpoint_ns AS BLOB) WHERE thread_id = ? AND checkpoint_ns = ?",
              [BLOB_IDS, BLOB_NS])
    source = "hostile-blob-thread-source"
    first = p.put(source, {"messages": [HumanMessage(BLOB_THREAD_TEXT, id="bt-1")], "title": "blob thread"},
                  writes=[("messages", [AIMessage("answered under a BLOB id", id="bt-2")])])
    p.put(source, {"messages": [HumanMessage(BLOB_THREAD_TEXT, id="bt-1"), AIMessage("answered under a BLOB id",
                                                                                     id="bt-2")],
                   "title": "blob thread"}, parent=first, writes=[("title", "blob thread")])
    for table in ("checkpoints", "writes"):
        p.sql(f"UPDATE {table} SET thread_id = CAST(? AS BLOB) WHERE thread_id = ?", [BLOB_IDS.encode(), source])


@case("huge-step", "metadata steps no integer column holds: 2**64, -2**70, infinity, NaN (as json.dumps writes them)",
      threads=[HUGE_STEP], kept=["a step past any integer"], owner="rows")
def _huge_step(p: Planting) -> None:
    parent = None
    for i, step in enumerate(HUGE_STEPS):
        parent = p.put(HUGE_STEP, {"messages": [HumanMessage("a step past any integer", id="hs-1")],
                                   "title": f"huge step {i}"},
                       metadata={"step": step, "counter": 2**80 + i}, parent=parent, writes=[("title", f"write {i}")])


@case("secret-channels", "channels named like secrets (api_key, db_password) holding a short text and a number",
      threads=[SECRET_CHANNELS], secrets=[API_KEY_VALUE, str(DB_PASSWORD_VALUE), str(DB_PASSWORD_VALUE + 1)],
      kept=["ordinary title"], owner="rows")
def _secret_channels(p: Planting) -> None:
    first = p.put(SECRET_CHANNELS, {"messages": [HumanMessage("hello", id="sc-1")], "title": "ordinary title",
                                    "api_key": API_KEY_VALUE, "db_password": DB_PASSWORD_VALUE},
                  writes=[("db_password", DB_PASSWORD_VALUE + 1)])
    p.put(SECRET_CHANNELS, {"messages": [HumanMessage("hello", id="sc-1")], "title": "ordinary title",
                            "api_key": API_KEY_VALUE, "db_password": DB_PASSWORD_VALUE + 1}, parent=first)


__all__ = ["API_KEY_VALUE", "BLOB_CHECKPOINT", "BLOB_IDS", "BLOB_IDS_TEXT", "BLOB_NS", "BLOB_THREAD",
           "BLOB_THREAD_TEXT", "DB_PASSWORD_VALUE", "HUGE_STEP", "HUGE_STEPS", "ROWS_CASES", "SECRET_CHANNELS"]
