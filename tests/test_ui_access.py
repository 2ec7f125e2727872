"""The access gate and the audit trail in the running app (AppTest fakes the login through ``st.user``)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest
from ui_app import APP, PAGES, all_text, shown

from inspector.store import open_store
from inspector.ui import connection

AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "not-a-secret",
        "client_id": "inspector", "client_secret": "not-a-secret",
        "server_metadata_url": "https://idp.invalid/.well-known/openid-configuration"}
ALICE = {"is_logged_in": True, "email": "alice@corp.org", "email_verified": True}
MALLORY = {"is_logged_in": True, "email": "mallory@evil.invalid"}
LOGGED_OUT = {"is_logged_in": False}
PAGE_PARAMS = [("threads", {}), ("thread", {"thread": "demo-research"}), ("diff", {"thread": "demo-research"}),
               ("health", {})]


@pytest.fixture
def settings_env(app_on_demo, monkeypatch):
    """Set INSPECTOR_* variables for the app (settings re-read)."""

    def set_env(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(f"INSPECTOR_{name.upper()}", value)
        connection.settings.clear()

    yield set_env
    connection.settings.clear()


def names_a_store(at: AppTest) -> bool:
    """Whether the sidebar names the open store (its "Store (read-only)" line and the URL under it)."""
    return any(c.value.startswith("Store (") for c in at.sidebar.caption)


def visit(page: str, params: dict, user: dict, auth: bool = True) -> AppTest:
    """Open ``page`` as ``user``: a first run as an allowed user registers the pages, then the visit itself."""
    at = AppTest.from_file(APP, default_timeout=60)
    if auth:
        at.secrets["auth"] = AUTH
    at.user = ALICE
    at.run()
    if page != "threads":
        at.switch_page(PAGES[page])
    at.user = user
    at.query_params.clear()
    at.query_params.update(params)
    return at.run()


@pytest.mark.parametrize("page, params", PAGE_PARAMS)
def test_with_an_allow_list_pages_show_only_the_login_prompt_until_a_login(settings_env, demo_db, page, params):
    settings_env(allowed_users="corp.org")
    at = visit(page, params, LOGGED_OUT)
    assert not at.exception
    assert [t.value for t in at.title] == ["state-inspector"]
    assert [b.label for b in at.button] == ["Log in"]
    assert "Log in to open this dashboard." in [i.value for i in at.info]
    assert not at.dataframe and not names_a_store(at) and not at.json and not at.tabs
    text = all_text(at)
    assert "demo-research" not in text and str(demo_db) not in text and "EV battery" not in text


def test_a_login_outside_the_allow_list_is_refused(settings_env):
    settings_env(allowed_users="corp.org, bob@partner.invalid")
    at = visit("thread", {"thread": "demo-research"}, MALLORY)
    assert not at.exception
    assert any("mallory@evil.invalid" in e.value and "is not allowed" in e.value for e in at.error)
    assert [b.label for b in at.button] == ["Log out"]
    assert not at.dataframe and not at.tabs and "demo-research" not in all_text(at)


def test_an_allowed_login_sees_the_pages(settings_env):
    settings_env(allowed_users="corp.org")
    at = visit("threads", {}, ALICE)
    assert not at.exception
    assert at.dataframe and "demo-research" in list(at.dataframe[0].value["thread"])
    assert any("Logged in as" in c.value and "alice@corp.org" in c.value for c in at.sidebar.caption)
    assert not at.sidebar.warning


@pytest.mark.parametrize("page, params", PAGE_PARAMS)
def test_without_a_login_every_page_says_it_is_open_to_anyone(settings_env, page, params):
    settings_env()
    at = visit(page, params, {}, auth=False)
    assert not at.exception
    assert any("open to anyone who can reach it" in w.value for w in at.sidebar.warning)


def test_an_allow_list_without_a_login_shows_nothing(settings_env):
    settings_env(allowed_users="corp.org")
    at = visit("threads", {}, {}, auth=False)
    assert not at.exception
    assert any("no login is configured" in e.value for e in at.error)
    assert not at.dataframe and not names_a_store(at)


def lines(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_audit_trail_records_each_view_once_with_the_login(settings_env, tmp_path, demo_db):
    log = tmp_path / "audit.log"
    settings_env(allowed_users="corp.org", audit_log=str(log))
    at = visit("thread", {"thread": "demo-research"}, ALICE)
    assert not at.exception
    first = lines(log)
    assert [(r["action"], r["user"], r["thread"]) for r in first] == [
        ("thread_view", "alice@corp.org", "demo-research"), ("checkpoint_view", "alice@corp.org", "demo-research")]
    head = first[1]["checkpoint"]
    assert head == at.query_params["checkpoint"] and first[1]["store"] == f"sqlite:///{demo_db}"
    at.run()  # the same view again: no new line
    assert len(lines(log)) == 2
    with open_store(f"sqlite:///{demo_db}") as store:
        other = next(r.checkpoint_id for r in store.timeline("demo-research") if r.checkpoint_id != head)
    at.query_params["checkpoint"] = other
    at.run()
    at.run()
    assert not at.exception
    assert [(r["action"], r["checkpoint"]) for r in lines(log)[2:]] == [("checkpoint_view", other)]
    at.switch_page(PAGES["diff"])
    at.query_params.clear()
    at.query_params["thread"] = "demo-research"
    at.run()
    assert lines(log)[-1]["action"] == "diff_view" and lines(log)[-1]["from_checkpoint"]
    content = log.read_text()
    assert "EV battery" not in content and "lithium" not in content  # identifiers only, never the state


def test_an_unwritable_audit_log_shows_nothing(settings_env, tmp_path):
    settings_env(audit_log=str(tmp_path / "no-such-dir" / "audit.log"))
    at = visit("thread", {"thread": "demo-research"}, {}, auth=False)
    assert not at.exception
    assert any("cannot write the audit log" in e.value for e in at.error)
    assert not at.tabs and not at.json


def test_unreadable_settings_show_nothing_but_why(settings_env):
    settings_env(cache_ttl_seconds="soon")  # the allow-list cannot be known either
    at = visit("threads", {}, ALICE)
    assert not at.exception
    assert any("cache_ttl_seconds must be an integer" in shown(e.value) for e in at.error)
    assert not at.dataframe and not names_a_store(at)
