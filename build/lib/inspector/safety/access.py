"""Who may look: the login providers configured for Streamlit, and the ``allowed_users`` list.

Streamlit's OIDC login is configured by an ``[auth]`` table in
``.streamlit/secrets.toml`` (``redirect_uri``, ``cookie_secret`` and either the
provider's ``client_id``/``client_secret``/``server_metadata_url`` in ``[auth]``
itself or in named tables ``[auth.<provider>]``). ``allowed_users`` lists e-mail
addresses (``alice@example.com``) and domains (``example.com`` or ``@example.com``);
a login matches when its e-mail is on the list or ends in a listed domain, and
the provider has not marked the address unverified.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ANONYMOUS = "anonymous"


def login_providers(auth: Mapping[str, Any] | None) -> list[str | None]:
    """The providers of an ``[auth]`` table: ``None`` for one set in ``[auth]`` itself, then named ones."""
    if not auth:
        return []
    providers: list[str | None] = [None] if "client_id" in auth else []
    providers += [name for name, value in auth.items() if isinstance(value, Mapping) and "client_id" in value]
    return providers


def identity(user: Mapping[str, Any]) -> str:
    """The name the audit trail records for a logged-in user: e-mail, else name, else subject."""
    for key in ("email", "name", "sub"):
        if isinstance(user.get(key), str) and user[key].strip():
            return user[key].strip()
    return ANONYMOUS


def is_allowed(user: Mapping[str, Any], allowed: tuple[str, ...]) -> bool:
    """True when ``user`` (``st.user``'s claims) may use the dashboard under ``allowed``.

    An empty list allows every logged-in user. Otherwise the e-mail must be listed
    (case does not matter), or its domain (exactly: ``example.com`` admits neither
    ``evil-example.com`` nor ``sub.example.com``); an address the provider reports
    unverified never matches.
    """
    if not allowed:
        return True
    email = user.get("email")
    if not isinstance(email, str) or email.count("@") != 1 or user.get("email_verified") is False:
        return False
    email = email.strip().lower()
    domain = email.split("@", 1)[1]
    entries = {entry.strip().lower() for entry in allowed}
    return email in entries or domain in {entry.lstrip("@") for entry in entries if "@" not in entry.lstrip("@")}
