"""Who may look: login providers, the allow-list, the identity the audit trail records."""

from __future__ import annotations

import pytest

from inspector.safety.access import ANONYMOUS, identity, is_allowed, login_providers
from inspector.settings import load_settings

ALLOWED = ("Alice@Example.com", "@corp.org", "team.net")


@pytest.mark.parametrize("user, allowed", [
    ({"email": "alice@example.com"}, True),
    ({"email": "ALICE@example.com"}, True),
    ({"email": "bob@example.com"}, False),
    ({"email": "x@corp.org"}, True),
    ({"email": "x@team.net"}, True),
    ({"email": "x@evil-team.net"}, False),
    ({"email": "x@sub.team.net"}, False),
    ({"email": "x@corp.org", "email_verified": False}, False),
    ({"email": "x@corp.org", "email_verified": True}, True),
    ({"email": "a@b@corp.org"}, False),
    ({"name": "no e-mail"}, False),
    ({}, False),
])
def test_allow_list_matches_addresses_and_exact_domains(user, allowed):
    assert is_allowed(user, ALLOWED) is allowed


def test_no_allow_list_admits_any_login():
    assert is_allowed({"email": "anyone@anywhere.invalid"}, ())


def test_login_providers_of_an_auth_table():
    assert login_providers(None) == [] and login_providers({}) == []
    assert login_providers({"redirect_uri": "r", "cookie_secret": "c", "client_id": "x"}) == [None]
    named = {"redirect_uri": "r", "cookie_secret": "c", "google": {"client_id": "g"}, "okta": {"client_id": "o"}}
    assert login_providers(named) == ["google", "okta"]


def test_identity_prefers_the_email():
    assert identity({"email": "a@b.c", "name": "A"}) == "a@b.c"
    assert identity({"name": "A", "sub": "123"}) == "A"
    assert identity({"sub": "123"}) == "123"
    assert identity({}) == ANONYMOUS


def test_settings_read_allowed_users_and_audit_log_from_secrets_and_environment():
    from_secrets = load_settings({"inspector": {"allowed_users": ["a@b.c", "@corp.org"], "audit_log": "/var/log/a"}}, {})
    assert from_secrets.allowed_users == ("a@b.c", "@corp.org") and from_secrets.audit_log == "/var/log/a"
    from_env = load_settings({}, {"INSPECTOR_ALLOWED_USERS": "a@b.c, corp.org", "INSPECTOR_AUDIT_LOG": "/tmp/x.log"})
    assert from_env.allowed_users == ("a@b.c", "corp.org") and from_env.audit_log == "/tmp/x.log"
    assert load_settings({}, {}).allowed_users == () and load_settings({}, {}).audit_log is None
