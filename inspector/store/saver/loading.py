"""Loading the saver a ``module.path:attribute`` or ``path/to/file.py:attribute`` spec names.

The convention is ``langgraph.json``'s ``checkpointer`` entry: the attribute is a
``BaseCheckpointSaver``, or a function returning one, or a (sync or async) context
manager yielding one. The module is the one the user named in the URL.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from ..model import StoreError
from ..not_utf8 import quoted


def import_roots(path: Path) -> list[Path]:
    """The folders a ``.py`` file's own imports resolve from, as ``python path/to/file.py`` and
    ``langgraph.json``'s ``"./src/agent/graph.py:graph"`` see them: the file's folder and, when that folder
    is a package (it holds ``__init__.py``), the folder above its outermost package, so that both
    ``from fakemodel import ...`` (a module beside the file) and ``from agent.tools import ...`` resolve."""
    folder = path.parent
    roots = [folder]
    top = folder
    while (top / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    if top != folder:
        roots.append(top)
    return roots


@contextlib.contextmanager
def file_imports(path: Path) -> Iterator[list[Path]]:
    """``import_roots(path)`` at the front of ``sys.path`` inside the block (for the import and the check
    before it), removed after it; modules the file imported stay imported."""
    roots = [str(root) for root in import_roots(path)]
    added = [root for root in roots if root not in sys.path]
    sys.path[:0] = added
    try:
        yield [Path(root) for root in roots]
    finally:
        for root in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(root)


def import_target(target: str) -> ModuleType:
    """The module ``target`` names: a dotted module path or a ``.py`` file (imported with its folder on the
    path, ``file_imports``)."""
    if target.endswith(".py"):
        path = Path(target).expanduser().resolve()
        if not path.is_file():
            raise StoreError(f"no Python file at {path}")
        name = f"inspector_saver_{abs(hash(str(path)))}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise StoreError(f"cannot load {path} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            with file_imports(path):
                spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise StoreError(f"importing {path} failed: {type(exc).__name__}: {exc}") from None
        return module
    try:
        return importlib.import_module(target)
    except ImportError as exc:
        raise StoreError(f"cannot import module {quoted(target)}: {exc}") from None
    except Exception as exc:
        raise StoreError(f"importing {quoted(target)} failed: {type(exc).__name__}: {exc}") from None


def load_saver(spec: str, stack: contextlib.ExitStack, run_async: Callable[[Any], Any]) -> BaseCheckpointSaver:
    """Resolve ``spec`` to a saver; anything entered is closed by ``stack``."""
    target, _, attribute = spec.rpartition(":")
    module = import_target(target)
    try:
        obj = getattr(module, attribute)
    except AttributeError:
        raise StoreError(f"{target} has no attribute {quoted(attribute)}") from None
    for _ in range(3):  # a factory may return a context manager
        if isinstance(obj, BaseCheckpointSaver):
            return obj
        obj = _unwrap(obj, spec, stack, run_async)
    raise StoreError(f"{spec} does not give a BaseCheckpointSaver")


def _unwrap(obj: Any, spec: str, stack: contextlib.ExitStack, run_async: Callable[[Any], Any]) -> Any:
    try:
        is_instance = not isinstance(obj, type)
        if is_instance and hasattr(obj, "__aenter__") and hasattr(obj, "__aexit__"):
            entered = run_async(obj.__aenter__())
            stack.callback(lambda: run_async(obj.__aexit__(None, None, None)))
            return entered
        if is_instance and hasattr(obj, "__enter__") and hasattr(obj, "__exit__"):
            return stack.enter_context(obj)
        if inspect.iscoroutine(obj):
            return run_async(obj)
        if callable(obj):
            result = obj()
            return run_async(result) if inspect.iscoroutine(result) else result
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(f"creating the saver {spec} failed: {type(exc).__name__}: {exc}") from None
    raise StoreError(f"{spec} is a {type(obj).__name__}, not a BaseCheckpointSaver or a function returning one")
