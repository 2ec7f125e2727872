"""The test fixtures themselves: real PostgreSQL roles (the Streamlit server driven by Chromium:
test_browser_fixtures.py)."""

import psycopg
import pytest


@pytest.mark.postgres
def test_readonly_role_can_select_but_not_write(postgres_dsn):
    with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as admin:
        admin.execute("CREATE TABLE infra_probe (id int PRIMARY KEY, name text)")
        try:
            admin.execute("INSERT INTO infra_probe VALUES (1, 'seen')")
            with psycopg.connect(postgres_dsn.readonly_dsn, autocommit=True) as ro:
                assert ro.info.user == "inspector_ro"
                assert ro.execute("SELECT id, name FROM infra_probe").fetchall() == [(1, "seen")]
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    ro.execute("INSERT INTO infra_probe VALUES (2, 'written')")
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    ro.execute("CREATE TABLE infra_intruder (id int)")
        finally:
            admin.execute("DROP TABLE infra_probe")
