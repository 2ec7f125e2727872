"""Names a package loads on first use (PEP 562's module ``__getattr__``): a package that keeps a heavy import
(LangGraph's graph package, the reducers) out of its own import declares which module holds each name it exports,
and ``loader`` gives it the ``__getattr__`` that imports that module when the name is first asked for.

Imports nothing of ``inspector``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def loader(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: a name of ``exports`` (name -> the module holding it, relative to the
    package) is imported once and kept in the package, so the next look-up finds it without a call."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(exports[name], package), name)
        vars(sys.modules[package])[name] = value
        return value

    return __getattr__
