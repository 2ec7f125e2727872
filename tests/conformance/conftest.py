"""``store_pair``: a factory of fresh (LangGraph writer, inspector store) pairs, per backend."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import partial

import pytest

from conformance.backends import postgres_pair, sqlite_pair

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]

PairFactory = Callable[[], AbstractContextManager]


@pytest.fixture(scope="module", params=BACKENDS)
def store_pair(request, tmp_path_factory) -> PairFactory:
    """``store_pair()`` -> a context manager yielding ``(writer, store)`` on a fresh store."""
    if request.param == "sqlite":
        return partial(sqlite_pair, tmp_path_factory.mktemp("conformance"))
    return partial(postgres_pair, request.getfixturevalue("postgres_dsn"))
