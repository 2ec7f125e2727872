"""The suite's own conventions: the ``browser`` marker sits on exactly the tests that start Chromium, and
test files are named after the kind of test they hold."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTS = REPO_ROOT / "tests"

# Records, for every collected test, what ``-m`` kept and which fixtures the test really uses.
PROBE = textwrap.dedent('''
    import json, os

    seen = {}

    def record(items, selected):
        for item in items:
            seen[item.nodeid] = {"selected": selected, "fixtures": sorted(item.fixturenames),
                                 "path": str(item.path)}

    def pytest_deselected(items):
        record(items, False)

    def pytest_collection_finish(session):
        record(session.items, True)
        with open(os.environ["MARKER_PROBE_OUT"], "w") as out:
            json.dump(seen, out)
''')


@pytest.fixture(scope="module")
def collected(request, tmp_path_factory) -> dict[str, dict]:
    """The whole suite as ``-m browser`` sees it: what this session collected, when it collected every test
    file (the whole suite's run); otherwise the whole suite collected with ``-m browser`` in a separate pytest
    process."""
    from conftest import COLLECTED

    seen = request.config.stash.get(COLLECTED, {})
    if {Path(item["path"]).name for item in seen.values()} >= {p.name for p in TESTS.glob("test_*.py")}:
        return seen
    folder = tmp_path_factory.mktemp("marker-probe")
    (folder / "marker_probe.py").write_text(PROBE)
    out = folder / "seen.json"
    env = {**os.environ, "MARKER_PROBE_OUT": str(out),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-p", "marker_probe", "-m", "browser", str(TESTS)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return json.loads(out.read_text())


def test_browser_marker_selects_exactly_the_tests_using_the_browser_fixture(collected):
    uses_browser = {node for node, seen in collected.items() if "browser" in seen["fixtures"]}
    selected = {node for node, seen in collected.items() if seen["selected"]}
    assert uses_browser, "no test uses the browser fixture: the probe saw nothing"
    assert len(collected) > len(uses_browser)  # the other tests were collected too, and deselected
    assert sorted(uses_browser - selected) == [], "browser tests without the marker"
    assert sorted(selected - uses_browser) == [], "tests marked browser that never start Chromium"


def test_a_parameter_named_page_is_not_the_browser_page(collected):
    # test_ui_access parametrizes ``page`` (a page name): those tests run on AppTest, without Chromium.
    access = {node: seen for node, seen in collected.items() if "/test_ui_access.py::" in node.replace(os.sep, "/")}
    with_param = [node for node, seen in access.items() if "page" in seen["fixtures"]]
    assert with_param, "test_ui_access no longer has a parameter named page"
    assert not any(access[node]["selected"] for node in with_param)


def test_browser_tests_live_in_test_browser_files(collected):
    files_of = {}
    for seen in collected.values():
        files_of.setdefault(Path(seen["path"]).name, set()).add(seen["selected"])
    assert sorted(name for name, kinds in files_of.items()
                  if name.startswith("test_browser_") and kinds != {True}) == []
    assert sorted(name for name, kinds in files_of.items()
                  if not name.startswith("test_browser_") and True in kinds) == []


def test_only_the_browser_fixture_launches_chromium():
    # the module that holds the session's ``browser`` fixture, and this test, which names what it looks for
    allowed = {"fixtures/servers.py", Path(__file__).name}
    launching = [p.relative_to(TESTS).as_posix() for p in TESTS.rglob("*.py")
                 if p.relative_to(TESTS).as_posix() not in allowed and re.search(r"sync_playwright|\.launch\(", p.read_text())]
    assert launching == []
    assert re.search(r"def browser\(", (TESTS / "fixtures" / "servers.py").read_text())


def test_no_file_hides_its_kind_behind_another_suffix():
    misnamed = [p.name for p in TESTS.glob("test_*.py") if not p.name.startswith(("test_ui_", "test_browser_"))
                and re.search(r"_(ui|pages?|browser|apptest)\.py$", p.name)]
    assert misnamed == []
