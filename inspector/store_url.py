"""Which store a dashboard or a command opens: a flag, then the settings and environment (``db``, an app's home
the settings name), then the built-in demo database, written on first use by the demo agent."""

from __future__ import annotations

from .settings import Settings


def resolve_db_url(explicit: str | None, settings: Settings) -> str:
    """The store to open: a flag, then settings and environment, then the demo database."""
    if explicit:
        return explicit
    if settings.db:
        return settings.db
    home = settings.app_home_url()
    if home:
        return home
    from .demo import ensure_demo  # the demo agent imports LangGraph; only load it when needed

    return f"sqlite:///{ensure_demo()}"
