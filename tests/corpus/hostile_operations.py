"""The hostile corpus's cases aimed at operating the store (registered in ``hostile_corpus.CASES``): what
``prune-preview --sql`` prints and what the metrics endpoint serves.

* ``PRUNED``: a thread whose id holds a bidi override (U+202E) and C1 controls (CSI, OSC, ST), so the comment
  line ``--sql`` prints for it must spell them escaped, and whose checkpoint ids are uuid6 in mixed case, written
  by ``SqliteSaver.put``: the oldest in lower case, the two after it in upper case (``uuid.UUID`` reads both).
  Compared by code point, as the plan compares them, the lower-case id is the newest, so ``--keep-latest 1``
  keeps it and deletes the two others; a collation that ignores case (PostgreSQL's ICU ``en-US``, SQLite's
  ``NOCASE``) would put it first and a range ``checkpoint_id <= '<the largest deleted>'`` would delete it too.
  Each checkpoint has a write.
* ``EXTRA_TABLES`` tables of the app's own beside LangGraph's (raw SQL), so the metrics endpoint has more
  tables than series to serve.
"""

from __future__ import annotations

from hostile_corpus import Planting, case
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base.id import uuid6

PRUNED = "hostile-ops-\u202e\x9b2J\x9d0;pwned\x9c-end"
EXTRA_TABLES = 12
EXTRA_TABLE = "app_cache_{:03d}"


def mixed_case_ids() -> list[str]:
    """Three uuid6 ids in the order they were made: the first in lower case, the two after it in upper case."""
    made = [str(uuid6()) for _ in range(3)]
    return [made[0], made[1].upper(), made[2].upper()]


@case("operations", "a thread id with U+202E and C1 controls (CSI, OSC, ST) whose checkpoint ids are uuid6 in mixed "
      "case, so ordering them by collation instead of by code point deletes the one kept; and tables of the app's "
      "own beside LangGraph's", threads=[PRUNED], kept=["mixed-case ids"], owner="operations")
def _operations(p: Planting) -> None:
    parent = None
    for i, checkpoint_id in enumerate(mixed_case_ids()):
        parent = p.put(PRUNED, {"messages": [HumanMessage(f"mixed-case ids, step {i}", id=f"ops-{i}")],
                                "title": f"pruned \u202e\x9b step {i}"},
                       metadata={"step": i}, checkpoint_id=checkpoint_id, parent=parent,
                       writes=[("title", f"write of step {i}")], task_id=f"ops-task-{i}")
    for i in range(EXTRA_TABLES):
        p.sql(f"CREATE TABLE {EXTRA_TABLE.format(i)} (key TEXT PRIMARY KEY, value BLOB)")
        p.sql(f"INSERT INTO {EXTRA_TABLE.format(i)} VALUES ('k', zeroblob(2000))")


__all__ = ["EXTRA_TABLE", "EXTRA_TABLES", "PRUNED", "mixed_case_ids"]
