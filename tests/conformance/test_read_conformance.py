"""LangGraph's checkpoint conformance suite, its read-side capabilities, answered by the inspector's store.

Every ``put`` / ``put_writes`` of the suite goes to LangGraph's own saver; every
``get_tuple`` / ``list`` it checks is answered by ``open_store(...)`` on the same store.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from conformance.suites import READ_CAPABILITIES, run_read_suite


@pytest.mark.parametrize("capability", list(READ_CAPABILITIES))
def test_reads_pass_langgraph_conformance(store_pair, capability):
    report = run_read_suite(store_pair, [capability])
    result = report.results[capability]
    assert result.detected, f"the adapter does not implement {capability}"
    assert result.failures == []
    assert result.passed and result.tests_passed == len(READ_CAPABILITIES[capability])


TESTS = Path(__file__).resolve().parent.parent


def private_store_imports(source: str) -> list[str]:
    """Private names of ``inspector.store`` that ``source`` imports or names in a dotted string."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("inspector.store"):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
            found += [node.module] if any(part.startswith("_") for part in node.module.split(".")) else []
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names
                      if a.name.startswith("inspector.store") and any(p.startswith("_") for p in a.name.split("."))]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += re.findall(r"inspector\.store(?:\.\w+)*\._\w+", node.value)
    return found


def test_no_test_imports_a_private_name_of_the_store():
    package = "inspector" + ".store"  # spelled apart so this file does not name what it looks for
    sample = "from PKG.sqlite import _metadata\nimport PKG._x\npatch('PKG.sqlite._metadata')".replace("PKG", package)
    assert private_store_imports(sample) == [f"{package}.sqlite._metadata", f"{package}._x", f"{package}.sqlite._metadata"]
    offenders = {str(path.relative_to(TESTS)): names for path in TESTS.rglob("*.py")
                 if (names := private_store_imports(path.read_text()))}
    assert offenders == {}
