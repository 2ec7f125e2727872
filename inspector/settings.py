"""Settings shared by the dashboard and the CLI.

One place: the ``[inspector]`` table of ``.streamlit/secrets.toml`` (and its
``[connections.<name>]`` entries), overridden by ``INSPECTOR_*`` environment
variables, overridden in turn by command-line flags. Streamlit is not needed to
read them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

SECRETS_FILES = (Path.home() / ".streamlit" / "secrets.toml", Path.cwd() / ".streamlit" / "secrets.toml")

_TRUE = {"1", "true", "yes", "on"}
# What ``data_dir`` names, as the commands that read a thread's files (``--data-dir``) say it.
DATA_DIR_HELP = ("DeerFlow's data folder holding threads/ (default: INSPECTOR_DATA_DIR, settings, "
                 "or the SQLite store's folder)")


@dataclass(frozen=True)
class Settings:
    db: str | None = None
    memory_db: str | None = None
    lock_store: bool = False
    data_dir: str | None = None
    cache_ttl_seconds: int = 300
    cache_max_entries: int = 64
    oversize_state_bytes: int = 1_000_000
    oversize_field_bytes: int = 256_000
    uncleared_images_after: int = 3
    max_messages_without_summary: int = 200
    what_if_keep_newest: int = 10
    pg_statement_timeout_ms: int = 30_000
    pg_pool_size: int = 4
    deerflow_home: str | None = None
    schema: str | None = None
    profile: str | None = None
    bundle_max_file_bytes: int = 25_000_000
    bundle_max_files_bytes: int = 250_000_000
    bundle_open_max_bytes: int = 4_000_000_000
    bundle_open_max_members: int = 10_000
    bundle_open_max_ratio: int = 200
    bundle_cache_max_entries: int = 4
    bundle_cache_max_mb: int = 2048
    cache_dir: str | None = None
    cache_max_mb: int = 512
    cache_url: str | None = None
    health_top_threads: int = 50
    follow_seconds: int = 2
    disk_budget_bytes: int = 0
    allowed_users: tuple[str, ...] = ()
    audit_log: str | None = None
    redact_patterns: tuple[str, ...] = ()
    allow_reveal: bool = False
    redact_hash_key: str | None = None
    # the AES key of a store written by LangGraph's EncryptedSerializer; never shown (kept out of the repr)
    aes_key: str | None = field(default=None, repr=False)
    connections: dict[str, str] = field(default_factory=dict)

    def app_home_url(self) -> str | None:
        """The store of the app home the settings or the environment name (DeerFlow's: ``deerflow_home``, else
        ``DEER_FLOW_HOME``), or None."""
        home = self.deerflow_home or os.environ.get("DEER_FLOW_HOME")
        if not home:
            return None
        from .store.apps import deerflow_url

        return deerflow_url(home)


def _read_secrets(paths: tuple[Path, ...]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for path in paths:
        try:
            with path.open("rb") as fh:
                data = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError):
            continue
        for key, value in data.items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
    return merged


def _patterns(name: str, value: Any) -> tuple[str, ...]:
    """A list of regular expressions: a TOML array, or (from the environment) a JSON array or one per line."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                from .store.not_utf8 import named

                raise ValueError(f"setting {name} must be a JSON array of strings, got {named(value)}") from None
        else:
            value = [line for line in text.splitlines() if line.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        from .store.not_utf8 import named

        raise ValueError(f"setting {name} must be a list of regular expressions, got {named(value)}")
    for pattern in value:  # a bad pattern is named now, not when the first value is shown
        try:
            re.compile(pattern)
        except re.error as exc:
            from .store.not_utf8 import named

            raise ValueError(f"setting {name}: {named(pattern)} is not a valid regular expression ({exc})") from None
    return tuple(value)


def _coerce(name: str, value: Any, default: Any) -> Any:
    if name == "redact_patterns":
        return _patterns(name, value)
    if isinstance(default, tuple):  # a TOML list, or one comma-separated string (environment variables)
        items = value.split(",") if isinstance(value, str) else value if isinstance(value, (list, tuple)) else [value]
        return tuple(str(item).strip() for item in items if str(item).strip())
    if isinstance(default, bool):
        return value if isinstance(value, bool) else str(value).strip().lower() in _TRUE
    if isinstance(default, int):
        try:
            return int(value)
        except (TypeError, ValueError):
            from .store.not_utf8 import named

            raise ValueError(f"setting {name} must be an integer, got {named(value)}") from None
    return None if value in (None, "") else str(value)


def default_cache_dir(environ: dict[str, str] | None = None) -> Path:
    """Where the analysis cache lives unless ``cache_dir`` says: ``$XDG_CACHE_HOME/state-inspector``, else
    ``~/.cache/state-inspector``."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "state-inspector"


def load_settings(secrets: dict[str, Any] | None = None, environ: dict[str, str] | None = None) -> Settings:
    """Settings from secrets (``[inspector]``, ``[connections]``) then ``INSPECTOR_*`` variables."""
    secrets = _read_secrets(SECRETS_FILES) if secrets is None else secrets
    environ = os.environ if environ is None else environ
    base = Settings()
    values: dict[str, Any] = {}
    table = secrets.get("inspector", {}) if isinstance(secrets.get("inspector"), dict) else {}
    for f in fields(Settings):
        if f.name == "connections":
            continue
        default = getattr(base, f.name)
        if f.name in table:
            values[f.name] = _coerce(f.name, table[f.name], default)
        env_name = f"INSPECTOR_{f.name.upper()}"
        if environ.get(env_name) not in (None, ""):
            values[f.name] = _coerce(f.name, environ[env_name], default)
    connections = {
        name: str(entry["url"])
        for name, entry in (secrets.get("connections") or {}).items()
        if isinstance(entry, dict) and entry.get("url")
    }
    settings = replace(base, **values, connections=connections)
    if settings.db is None and connections:
        settings = replace(settings, db=next(iter(connections.values())))
    return settings


def store_flag(argv: list[str]) -> str | None:
    """The store named on a command line by ``--db URL`` or ``--deerflow-home DIR`` (other flags ignored)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--db")
    parser.add_argument("--deerflow-home")
    known, _ = parser.parse_known_args(argv)
    if known.db is None and known.deerflow_home:
        from .store.apps import deerflow_url

        return deerflow_url(known.deerflow_home)
    return known.db


def schema_flag(argv: list[str]) -> str | None:
    """The state schema named on a command line by ``--schema MODULE:CLASS`` (other flags ignored)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--schema")
    known, _ = parser.parse_known_args(argv)
    return known.schema


def profile_flag(argv: list[str]) -> str | None:
    """The app profile named on a command line by ``--profile NAME`` (other flags ignored)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--profile")
    known, _ = parser.parse_known_args(argv)
    return known.profile


def store_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments ``open_store`` takes from the settings (bundles unpack into the cache folder)."""
    return {
        "pg_timeout_ms": settings.pg_statement_timeout_ms,
        "pg_pool_size": settings.pg_pool_size,
        "bundle_max_bytes": settings.bundle_open_max_bytes,
        "bundle_max_members": settings.bundle_open_max_members,
        "bundle_max_ratio": settings.bundle_open_max_ratio,
        "bundle_cache_dir": Path(settings.cache_dir or default_cache_dir()).expanduser() / "bundles",
        "bundle_cache_max_entries": settings.bundle_cache_max_entries,
        "bundle_cache_max_bytes": settings.bundle_cache_max_mb * 1024 * 1024,
    }
