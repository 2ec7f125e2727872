"""The access gate, run by app.py before anything else is drawn.

With an ``[auth]`` table in ``.streamlit/secrets.toml``, every page shows only
a login prompt until Streamlit's OIDC login is present (``st.user``), and only
users on ``allowed_users`` (when set) get further. Without a login configured,
every page says the dashboard is open to anyone who can reach it; an
``allowed_users`` list without a login shows nothing, since nobody can be checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from ..safety.access import ANONYMOUS, identity, is_allowed, login_providers
from .connection import settings
from .inert import literal

OPEN_NOTICE = ("No login is configured: this dashboard is open to anyone who can reach it. "
               "See the README, *Deploying for support staff*.")


def _auth_section() -> Mapping[str, Any] | None:
    try:
        section = st.secrets.get("auth")
    except FileNotFoundError:  # no secrets.toml at all
        return None
    return section if isinstance(section, Mapping) else None


def _user() -> dict[str, Any]:
    return st.user.to_dict()


def current_user() -> str:
    """Who is looking, for the audit trail: the login's e-mail (or name), else ``anonymous``."""
    user = _user()
    return identity(user) if user.get("is_logged_in") else ANONYMOUS


def _login_prompt(providers: list[str | None]) -> None:
    st.title("state-inspector")
    st.info("Log in to open this dashboard.", icon=":material/lock:")
    for provider in providers:
        label = "Log in" if provider is None else f"Log in with {literal(provider)}"
        if st.button(label, key=f"login-{provider or 'default'}", icon=":material/login:"):
            st.login(provider)


def _refused(user: dict[str, Any]) -> None:
    st.title("state-inspector")
    st.error(f"{literal(identity(user))} is not allowed to open this dashboard "
             "(ask its operator to add you to allowed_users).", icon=":material/block:")
    if st.button("Log out", icon=":material/logout:"):
        st.logout()


def gate() -> None:
    """Stop the run, showing only a login prompt or a refusal, unless the viewer may see the pages."""
    try:
        allowed = settings().allowed_users
    except ValueError as exc:  # unreadable settings: the allow-list is unknown, so nothing is shown
        st.error(f"The settings cannot be read: {literal(exc)}", icon=":material/error:")
        st.stop()
    auth = _auth_section()
    providers = login_providers(auth)
    if auth is None:
        if allowed:
            st.error("allowed_users is set, but no login is configured: add an [auth] table to "
                     ".streamlit/secrets.toml (see the README). Nothing is shown until then.", icon=":material/lock:")
            st.stop()
        st.sidebar.warning(OPEN_NOTICE, icon=":material/lock_open:")
        return
    user = _user()
    if not user.get("is_logged_in"):
        _login_prompt(providers or [None])
        st.stop()
    if not is_allowed(user, allowed):
        _refused(user)
        st.stop()
    with st.sidebar:
        st.caption(f"Logged in as {literal(identity(user))}")
        if st.button("Log out", icon=":material/logout:"):
            st.logout()
