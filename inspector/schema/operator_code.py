"""What an operator's schema module needs, checked before it is imported, and why an import failed, in one line.

``--schema deerflow.agents.thread_state:ThreadState`` names code from the app's own
environment: its packages (``deerflow``, ``langchain``, ...) and its Python (DeerFlow needs
3.12). Run from another environment, the import fails, often seconds in, after the
operator's module has loaded half of LangChain. ``check_before_import`` answers first and
cheaply: the named file parses as this Python's syntax and the top-level packages it (or
the dotted module) imports are installed here or lie beside the file, in its folder or its
package's (``importlib.util.find_spec`` of each root, which runs no package code).
``import_failure`` words an error the import raised anyway. Both say what is missing and the
fix: run the inspector in the app's environment.
"""

from __future__ import annotations

import ast
import importlib.util
import platform
import sys
from pathlib import Path

from ..store.not_utf8 import quoted

MAX_SOURCE_BYTES = 4_000_000  # a schema module larger than this is imported without the pre-check


class SchemaError(ValueError):
    """A schema spec that cannot be loaded; the message says why, in one line."""


def check_spec(spec: str) -> tuple[str, str]:
    """``spec`` as (module or file, attribute); raises ``SchemaError`` when it is malformed or its code cannot
    be imported here (``check_before_import``). Cheap: nothing of LangGraph is loaded."""
    target, sep, attribute = spec.strip().rpartition(":")
    if not sep or not target or not attribute.isidentifier():
        raise SchemaError(f"schema {quoted(spec)}: expected module.path:Class or path/to/file.py:Class")
    missing = check_before_import(target, spec.strip())
    if missing:
        raise SchemaError(f"schema {quoted(spec)}: {missing}")
    return target, attribute


def _python() -> str:
    return f"Python {platform.python_version()} ({sys.executable})"


def fix(spec: str) -> str:
    return (f"run the inspector in the app's own environment (there: pip install /path/to/state-inspector, then "
            f"python -m inspector ... --schema {spec})")


def _missing(module: str, spec: str) -> str:
    return f"module {quoted(module)} is not installed in this {_python()}; {fix(spec)}"


def _installed(root: str) -> bool:
    if root in sys.modules or root in sys.builtin_module_names:
        return True
    try:
        return importlib.util.find_spec(root) is not None
    except (ImportError, ValueError):
        return False


def _top_level_imports(tree: ast.Module) -> list[str]:
    """The root packages a module imports unconditionally (top-level statements, absolute imports)."""
    roots: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            roots += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            roots.append(node.module.split(".")[0])
    return list(dict.fromkeys(roots))


def check_before_import(target: str, spec: str) -> str | None:
    """Why ``target`` (a dotted module or a ``.py`` file) cannot be imported here, or None when it may be."""
    if not target.endswith(".py"):
        root = target.split(".")[0]
        return None if _installed(root) else _missing(root, spec)
    path = Path(target).expanduser()
    try:
        if not path.is_file() or path.stat().st_size > MAX_SOURCE_BYTES:
            return None  # the import reports a missing file; a huge one is imported as it is
        source = path.read_bytes()
    except OSError:
        return None
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        return (f"{path.name} line {exc.lineno} is not valid syntax for {_python()} ({exc.msg}): the app may "
                f"need a newer Python; {fix(spec)}")
    except ValueError:  # null bytes
        return None
    from ..store.saver.loading import file_imports

    with file_imports(path.resolve()):  # a module beside the file (or in its package) is found as the import finds it
        missing = [root for root in _top_level_imports(tree) if not _installed(root)]
    if missing:
        names = ", ".join(repr(m) for m in missing)
        return (f"{path.name} imports {names}, not installed in this {_python()}; {fix(spec)}")
    return None


def import_failure(exc: BaseException, spec: str) -> str | None:
    """An import error worded as what is missing and the fix; None for other errors."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return _missing(exc.name, spec)
    if isinstance(exc, SyntaxError):
        where = f"{Path(exc.filename).name} line {exc.lineno}" if exc.filename else "the module"
        return f"{where} is not valid syntax for {_python()} ({exc.msg}): the app may need a newer Python; {fix(spec)}"
    if isinstance(exc, ImportError):
        return f"{exc} (in this {_python()}); {fix(spec)}"
    return None
