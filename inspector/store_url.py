"""Which store a dashboard or a command opens: a flag, then the settings and environment (``db``, DeerFlow's
home), then the built-in demo database, written on first use by the demo agent."""

from __future__ import annotations

import os

from .settings import Settings
from .store.apps import deerflow_url


def resolve_db_url(explicit: str | None, settings: Settings) -> str:
    """The store to open: a flag, then settings and environment, then the demo database."""
    if explicit:
        return explicit
    if settings.db:
        return settings.db
    deerflow_home = settings.deerflow_home or os.environ.get("DEER_FLOW_HOME")
    if deerflow_home:
        return deerflow_url(deerflow_home)
    from .demo import ensure_demo  # the demo agent imports LangGraph; only load it when needed

    return f"sqlite:///{ensure_demo()}"
