"""The test fixtures themselves: real PostgreSQL roles, a real Streamlit server
driven by Chromium."""

import textwrap

import psycopg
import pytest

from browser_helpers import shot, wait_for_app


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


@pytest.mark.browser
def test_streamlit_script_renders_in_chromium(tmp_path, streamlit_app, page):
    script = tmp_path / "hello.py"
    script.write_text(textwrap.dedent("""
        import streamlit as st
        st.title("Fixture check")
        if st.button("Press"):
            st.success("pressed")
    """))
    page.goto(streamlit_app(script=script))
    wait_for_app(page)
    assert page.get_by_role("heading", name="Fixture check").is_visible()

    page.get_by_role("button", name="Press").click()
    wait_for_app(page)
    alert = page.locator("[data-testid='stAlert']")
    assert alert.inner_text() == "pressed"
    assert shot(alert, "infrastructure-alert").stat().st_size > 0
