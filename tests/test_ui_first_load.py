"""A thread page's first load in a fresh process imports only what that page draws: not LangGraph's graph
package (a schema read), its SqliteSaver (an export), nor Altair (a chart of a panel not open)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("langgraph.graph", "langgraph.checkpoint.sqlite", "langchain_core", "altair", "inspector.schema.reading")

SCRIPT = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=120)
at.switch_page("inspector/ui/pages/thread.py")
at.query_params["thread"] = sys.argv[2]
at.run()
print(json.dumps({"exception": [e.value for e in at.exception], "title": [t.value for t in at.title],
                  "loaded": [m for m in sys.argv[3].split(",") if m in sys.modules]}))
"""


def test_a_thread_page_loads_no_module_of_a_panel_not_open(demo_db, tmp_path):
    env = {"INSPECTOR_DB": f"sqlite:///{demo_db}", "INSPECTOR_CACHE_DIR": str(tmp_path / "cache"),
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(REPO / "app.py"), "demo-research", ",".join(HEAVY)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["exception"] == [] and shown["title"] == ["demo-research"]
    assert shown["loaded"] == []
