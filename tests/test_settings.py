"""Settings: one place for the app and the CLI; secrets first, environment overrides."""

import pytest

from inspector.settings import Settings, load_settings, store_flag
from inspector.store_url import resolve_db_url


def test_defaults_without_any_source():
    s = load_settings(secrets={}, environ={})
    assert s == Settings()
    assert s.lock_store is False and s.db is None


def test_secrets_table_then_environment_override():
    secrets = {"inspector": {"db": "sqlite:///a.db", "lock_store": True, "cache_max_entries": 10}}
    s = load_settings(secrets=secrets, environ={})
    assert (s.db, s.lock_store, s.cache_max_entries) == ("sqlite:///a.db", True, 10)
    s = load_settings(secrets=secrets, environ={"INSPECTOR_DB": "sqlite:///b.db", "INSPECTOR_LOCK_STORE": "false"})
    assert (s.db, s.lock_store) == ("sqlite:///b.db", False)


def test_first_connection_is_the_default_store():
    s = load_settings(secrets={"connections": {"prod": {"url": "postgresql://x/y"}, "b": {"url": "z"}}}, environ={})
    assert s.db == "postgresql://x/y" and s.connections == {"prod": "postgresql://x/y", "b": "z"}


def test_bad_number_is_a_clear_error():
    with pytest.raises(ValueError, match="cache_ttl_seconds must be an integer"):
        load_settings(secrets={}, environ={"INSPECTOR_CACHE_TTL_SECONDS": "soon"})


def test_explicit_flag_wins_over_settings():
    s = load_settings(secrets={"inspector": {"db": "sqlite:///a.db"}}, environ={})
    assert resolve_db_url("sqlite:///flag.db", s) == "sqlite:///flag.db"
    assert resolve_db_url(None, s) == "sqlite:///a.db"


def test_without_any_store_the_demo_database_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DEMO_DIR", str(tmp_path))
    url = resolve_db_url(None, load_settings(secrets={}, environ={}))
    assert url == f"sqlite:///{tmp_path / 'demo.db'}"
    assert (tmp_path / "demo.db").is_file()


def test_store_flag_reads_db_or_deerflow_home(tmp_path):
    assert store_flag(["--db", "sqlite:///x.db", "--other"]) == "sqlite:///x.db"
    assert store_flag(["--deerflow-home", str(tmp_path)]) == f"deerflow://{tmp_path}"
    assert store_flag(["--db", "sqlite:///x.db", "--deerflow-home", str(tmp_path)]) == "sqlite:///x.db"
    assert store_flag([]) is None


def test_every_setting_is_documented_in_the_readme_and_the_example():
    from dataclasses import fields
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    example = (root / ".streamlit" / "secrets.toml.example").read_text()
    names = [f.name for f in fields(Settings) if f.name != "connections"]
    assert [n for n in names if f"| `{n}` |" not in readme] == []
    for name in ("cache_dir", "cache_max_mb", "health_top_threads", "follow_seconds"):
        assert name in example


def test_the_dashboard_server_settings_are_what_streamlit_reads(tmp_path):
    """``.streamlit/config.toml`` as ``streamlit run app.py`` reads it (another HOME: no user config): the dashboard
    listens on loopback only, and no full garbage collection runs after each script run, on the step's way to the
    browser."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("from streamlit import config; config.get_config_options(force_reparse=True); "
            "print(config.get_option('server.address'), config.get_option('runner.postScriptGC'))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")} | {"HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent, env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["127.0.0.1", "False"]
