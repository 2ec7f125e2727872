"""The store package stands alone: no module under ``inspector/store`` imports the rest of the inspector."""

import ast
from pathlib import Path

import inspector.store

STORE = Path(inspector.store.__file__).parent


def _imported(path: Path) -> list[str]:
    """Absolute names of every module ``path`` imports, relative imports resolved against its package."""
    package = ".".join(("inspector", *path.relative_to(STORE.parent).with_suffix("").parts))
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names += [module] if node.module else [f"{module}.{alias.name}" for alias in node.names]
    return names


def test_no_store_module_imports_the_rest_of_the_inspector():
    modules = sorted(STORE.rglob("*.py"))
    assert len(modules) > 20 and STORE / "sqlite" / "store.py" in modules
    outside = {
        f"{path.relative_to(STORE.parent)}: {name}"
        for path in modules
        for name in _imported(path)
        if name.split(".")[0] == "inspector" and not (name + ".").startswith("inspector.store.")
    }
    assert outside == set()


def test_the_scan_resolves_relative_imports():
    sample = STORE / "sqlite" / "states.py"
    names = _imported(sample)
    assert "inspector.store.delta" in names and "inspector.store.sqlite.queries" in names
    assert "inspector.store.model" in names
