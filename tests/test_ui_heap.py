"""The dashboard freezes what it holds after importing its pages, so the collection after every run walks only
what the runs made; garbage made later is still collected."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent("""
    import gc, json, sys, weakref
    import streamlit
    before = len(gc.get_objects())
    from inspector.ui import heap
    froze, again = heap.freeze_once(), heap.freeze_once()
    after = len(gc.get_objects())

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle made after the freeze: only a collection frees it
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    print(json.dumps({"froze": froze, "again": again, "before": before, "after": after,
                      "frozen": gc.get_freeze_count(), "cycle_collected": gone() is None,
                      "pages": all(f"inspector.ui.{p}" in sys.modules for p in heap.PAGES)}))
""")


def test_freezing_once_leaves_the_collections_what_the_runs_make():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120,
                         check=True).stdout
    import json

    got = json.loads(out.strip().splitlines()[-1])
    assert got["froze"] is True and got["again"] is False  # once per process: later runs do nothing
    assert got["pages"]  # the pages' modules are imported before the freeze, so they are frozen too
    assert got["frozen"] > got["before"]  # Streamlit's objects and the pages' are out of the collections
    assert got["after"] * 10 < got["before"]  # a collection walks a tenth of what it walked before, or less
    assert got["cycle_collected"]  # garbage made after the freeze is still collected
