"""The redaction rules on their own: every shape masked, the rest of the text kept, types and ids kept."""

from __future__ import annotations

import re

import pytest

from inspector.safety.redaction import Redactor, is_secret_key, length_class, redactor_for
from inspector.settings import Settings, load_settings
from inspector.store import CheckpointState, WriteRecord

MARK = re.compile(r"\[redacted ([a-z-]+) · ([^·]+) · #([0-9a-f]{6})\]")


@pytest.fixture(scope="module")
def r() -> Redactor:
    return Redactor()


@pytest.mark.parametrize("secret, kind", [
    ("sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56", "api-key"),
    ("sk-ant-api03-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56", "api-key"),
    ("sk-Ab12Cd34Ef56Gh78Ij90Kl12", "api-key"),
    ("AKIAIOSFODNN7EXAMPLE", "api-key"),
    ("ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr", "api-key"),
    ("gho_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr", "api-key"),
    ("github_pat_11AB12CD34_Ef56Gh78Ij90Kl12Mn34Op56Qr78St90", "api-key"),
    ("xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "api-key"),
    ("xoxp-123456789012-1234567890123-AbCdEfGhIjKl", "api-key"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
])
def test_key_shapes_are_masked_and_the_rest_of_the_text_kept(r, secret, kind):
    text = f"Use {secret} for the deploy, then stop."
    masked = r.text(text)
    assert secret not in masked
    assert masked.startswith("Use [redacted ") and masked.endswith(" for the deploy, then stop.")
    assert MARK.search(masked).group(1) == kind


@pytest.mark.parametrize("text, secret, kept", [
    ("Authorization: Bearer abc123def456ghi789jkl", "abc123def456ghi789jkl", "Authorization: Bearer "),
    ("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA==' https://x", "dXNlcjpwYXNzd29yZA==", "curl -H 'Authorization: "),
    ("db postgresql://admin:hunter2@db.internal:5432/app ok", "hunter2", "postgresql://admin:"),
    ("password=hunter2; next", "hunter2", "; next"),
    ('{"client_secret": "two words here", "n": 1}', "two words here", '"n": 1'),
    ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", "export AWS_SECRET_ACCESS_KEY="),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nafter", "MIIEow", "\nafter"),
])
def test_credentials_in_context_are_masked(r, text, secret, kept):
    masked = r.text(text)
    assert secret not in masked and kept in masked and MARK.search(masked)


@pytest.mark.parametrize("text", [
    "max_tokens=512 total_tokens: 7 token_usage: 9",
    "the bearer of this letter has information",
    "sk-learn and scikit-learn are fine; ghp_short too",
    "PWD=/home/user; see https://example.com/path?q=1",
    "a uuid 1f1eca0f-8e9f-6ba6-8003-bb57ef1cd77e and an id run-abc",
])
def test_ordinary_text_is_left_alone(r, text):
    assert r.text(text) == text


@pytest.mark.parametrize("before, secret", [
    ("user-", "sk-proj-AbCdEf0123456789GhIjKlMnOpQrSt_uV-wXyZ98"),
    ("deploy-prod-", "sk-T3BlbkFJAb12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78"),
    ("team-", "sk-ant-api03-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"),
    ("svc-", "sk-svcacct-xyzAb12Cd34Ef56Gh78Ij90Kl12Mn34Op56"),
    ("user_", "sk-proj-AbCdEf0123456789GhIjKlMnOpQrSt_uV-wXyZ98"),
    ("OPENAI_KEY_", "sk-ant-api03-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"),
])
def test_a_key_right_after_a_hyphen_or_an_underscore_is_masked_and_the_name_before_it_kept(r, before, secret):
    masked = r.text(f"header {before}{secret} sent")
    assert secret not in masked and MARK.search(masked).group(1) == "api-key"
    assert masked.startswith(f"header {before}[redacted ") and masked.endswith(" sent")


@pytest.mark.parametrize("text", [
    "task-skeleton-builder-for-the-long-pipeline",
    "desk-skills-and-abilities-of-the-whole-team",
    "locale-sk-slovak-language-pack-2024-final",
    "my-sk-learn-pipeline-v2-final-build-steps",
    "run-sk-20240101-nightly-build-results-eu",
    "-sk-" * 40,
    "my_sk-learn-pipeline-v2-final-build-steps",
    "model_sk-learn_regressor_fit_2024_results",
    "_sk-" * 40,
])
def test_kebab_and_snake_case_words_after_a_hyphen_or_an_underscore_are_left_alone(r, text):
    assert r.text(text) == text


def test_equal_values_share_a_mark_and_different_values_do_not(r):
    a = r.text("key sk-Ab12Cd34Ef56Gh78Ij90Kl12 end")
    b = r.text("other sk-Ab12Cd34Ef56Gh78Ij90Kl12")
    c = r.text("key sk-Zz12Cd34Ef56Gh78Ij90Kl12 end")
    assert MARK.search(a).group(0) == MARK.search(b).group(0)
    assert MARK.search(a).group(3) != MARK.search(c).group(3)
    assert MARK.search(a).group(2).strip() == "~30 chars"


def test_marks_are_keyed_so_a_hash_cannot_be_looked_up_elsewhere():
    one, two = Redactor(hash_key="a"), Redactor(hash_key="b")
    assert one.text("password=hunter2") != two.text("password=hunter2")
    assert one.text("password=hunter2") == Redactor(hash_key="a").text("password=hunter2")


def test_length_classes():
    assert [length_class(n) for n in (3, 14, 40, 164, 1234)] == [
        "<10 chars", "~10 chars", "~40 chars", "~160 chars", "~1,200 chars"]


def test_secret_key_names():
    secret = ["api_key", "apiKey", "OPENAI_API_KEY", "x-api-key", "Authorization", "password", "passwd", "secret",
              "token", "access_token", "client_secret", "db.password", "aws_secret_access_key",
              # as people write them: camelCase, run-together, abbreviated, bytes
              "dbPassword", "openaiApiKey", "githubToken", "clientSecret", "PGPASSWORD", "DB_PASS", "pwd", "pass",
              "MYSQL_PWD", "dbPass", "apikey", "OPENAIAPIKEY", "AWS_ACCESS_KEY_ID", "secretKey", "refreshToken",
              "connection_string", "Set-Cookie", b"password", b"dbPassword"]
    plain = ["max_tokens", "token_usage", "input_tokens", "secretary", "tokenizer", "keys", "monkey", "passage",
             "maxTokens", "totalTokens", "compass", "bypass", "passport", "password_policy_url", "passwordHint",
             "keyboard", "passes", "PWD", "OLDPWD", "primary_key", "sort_key", "tokenCount", b"\xffpassword"]
    assert [k for k in secret if not is_secret_key(k)] == []
    assert [k for k in plain if is_secret_key(k)] == []


@pytest.mark.parametrize("text, secret, kept", [
    ("PGPASSWORD=pgEnv77 psql -h db", "pgEnv77", "psql -h db"),
    ("DB_PASS=dbPass12 and more", "dbPass12", "and more"),
    ('{"dbPassword": "camel 1", "openaiApiKey": "camel2"}', "camel 1", '"openaiApiKey": "'),
    ('{"dbPassword": "camel 1", "openaiApiKey": "camel2"}', "camel2", '{"dbPassword": "'),
    ("githubToken=tok99, next", "tok99", ", next"),
    ("pwd: pw1234 pass=pass5678", "pw1234", "pass="),
    ("pwd: pw1234 pass=pass5678", "pass5678", "pwd: "),
    ("compass=north password=hunter2", "hunter2", "compass=north"),
    ("{b'password': b'bytesPw1', 'n': 1}", "bytesPw1", "'n': 1"),  # a bytes repr in text
])
def test_names_as_people_write_them_are_masked_in_text(r, text, secret, kept):
    masked = r.text(text)
    assert secret not in masked and kept in masked and MARK.search(masked)


@pytest.mark.parametrize("text", [
    "compass=north bypass: yes passport=P1 passage: the text",
    "password_policy_url=https://example.com/p tokenizer: bpe keyboard=us",
    "maxTokens=5 totalTokens: 7 passes=3",
])
def test_names_that_only_contain_a_secret_word_are_left_alone(r, text):
    assert r.text(text) == text


def test_key_shapes_beside_long_base64_runs_are_masked(r):
    payload = "QUJD" * 3000
    for text, secret in ((f"data:image/png;base64,{payload} key AKIAFAKE0123456789QZ", "AKIAFAKE0123456789QZ"),
                         (f"{payload}\npassword=B64neighbour1\n{payload}", "B64neighbour1"),
                         (f"{payload}\nAKIAFAKE0123456789QZ", "AKIAFAKE0123456789QZ")):
        masked = r.text(text)
        assert secret not in masked and payload in masked


def test_bytes_values_and_keys_are_masked(r):
    value = {b"password": b"bytesPw1", "blob": b"aws AKIAFAKE0123456789QZ here", "apiKey": b"\x00\x01raw",
             "bin": b"\xff\xfe ghp_Fake0123456789abcdefghijABCDEFGHIJ01 \x00", "plain": b"nothing here",
             b"dbPassword": "strValue1"}
    masked = r(value)
    assert masked[b"password"].startswith("[redacted password")
    assert masked[b"dbPassword"].startswith("[redacted password")
    assert masked["blob"].startswith("aws [redacted api-key") and masked["blob"].endswith(" here")
    assert masked["apiKey"].startswith("[redacted api-key")
    assert masked["bin"].startswith("[redacted binary-secret")
    assert masked["plain"] is value["plain"]


def test_values_under_secret_keys_are_masked_whole_and_counts_are_not(r):
    value = {"api_key": "plain-looking", "nested": {"Authorization": "Token abc", "password": 1234},
             "usage": {"total_tokens": 50, "token_usage": {"prompt": 3}}, "credentials": {"user": "u", "pw": "p"},
             "empty": {"token": None, "secret": ""}}
    masked = r(value)
    assert masked["api_key"].startswith("[redacted api-key")
    assert masked["nested"]["Authorization"].startswith("[redacted authorization")
    assert masked["nested"]["password"].startswith("[redacted password")
    assert masked["usage"] == value["usage"]
    assert all(v.startswith("[redacted ") for v in masked["credentials"].values())
    assert masked["empty"] == {"token": None, "secret": ""}
    assert r(masked) == masked  # idempotent


def test_unchanged_parts_are_the_same_objects(r):
    untouched = {"todos": [{"content": "write the report", "status": "pending"}]}
    value = {"plain": untouched, "messages": [{"content": "key sk-Ab12Cd34Ef56Gh78Ij90Kl12"}]}
    masked = r(value)
    assert r(untouched) is untouched
    assert masked is not value and masked["plain"] is untouched
    assert value["messages"][0]["content"].startswith("key sk-")  # the raw value is never modified


def test_records_keep_their_types_and_identifiers(r):
    secret = "sk-Ab12Cd34Ef56Gh78Ij90Kl12"
    state = CheckpointState(
        thread_id=secret, checkpoint_ns="", checkpoint_id="cp-1", parent_checkpoint_id=None,
        values={"messages": [{"content": f"use {secret}"}], "api_key": "raw"}, internal={},
        metadata={"api_key": "raw"}, writes=[WriteRecord("t", "p", 0, "api_key", "raw-write", "msgpack", 9),
                                             WriteRecord("t", "p", 1, "title", f"t {secret}", "msgpack", 9)],
        problems=[],
    )
    masked = r(state)
    assert isinstance(masked, CheckpointState) and masked is not state
    assert masked.thread_id == secret  # an identifier: the thread must stay reachable
    assert secret not in masked.values["messages"][0]["content"]
    assert masked.values["api_key"].startswith("[redacted") and masked.metadata["api_key"].startswith("[redacted")
    first, second = masked.writes
    assert first.channel == "api_key" and first.value.startswith("[redacted") and first.size == 9
    assert second.value.startswith("t [redacted api-key")
    assert state.values["api_key"] == "raw"


def test_operator_patterns_mask_their_first_group_or_the_whole_match():
    r = Redactor(patterns=[r"cust-[0-9]{6}", r"account (\d{8})"])
    assert r.text("ticket for cust-123456 done") .startswith("ticket for [redacted pattern")
    masked = r.text("account 12345678 closed")
    assert masked.startswith("account [redacted pattern") and masked.endswith(" closed")
    with pytest.raises(ValueError, match="redact_patterns"):
        Redactor(patterns=["(("])


def test_settings_carry_patterns_and_reveal_is_refused_unless_allowed():
    settings = load_settings({"inspector": {"redact_patterns": ["cust-[0-9]+"]}}, {})
    assert redactor_for(settings).text("cust-42") != "cust-42"
    with pytest.raises(PermissionError, match="allow_reveal"):
        redactor_for(settings, reveal=True)
    allowed = Settings(allow_reveal=True)
    assert redactor_for(allowed, reveal=True).text("password=hunter2") == "password=hunter2"
    with pytest.raises(ValueError, match="redact_patterns"):
        load_settings({}, {"INSPECTOR_REDACT_PATTERNS": '["(("]'})


def test_file_downloads_mask_text_and_leave_binary_alone(r):
    assert b"hunter2" not in r.file(b"DB_PASSWORD=hunter2\n")
    binary = b"\x89PNG\r\n\x1a\n\xff\xfe password=hunter2"
    assert r.file(binary) == binary


def test_image_payloads_are_kept(r):
    payload = "A" * 8000
    assert r.text(payload) is payload
    url = "data:image/png;base64," + payload
    assert r.text(url) == url


def test_a_state_without_secrets_is_returned_as_it_is(demo_db):
    from inspector.store import open_store

    r = Redactor()
    with open_store(str(demo_db)) as store:
        for thread in ("demo-vision", "demo-bloated", "demo-long", "demo-deerflow-current"):
            state = store.state(thread)
            assert r(state) is state, thread  # nothing masked, nothing copied (images and data URLs included)


def test_repeated_strings_and_keys_are_masked_at_every_occurrence(r):
    """A walk masks each distinct string once and reuses the result: every repeat is still masked, and
    unchanged parts stay the caller's own objects."""
    secret = "aws AKIAFAKE0123456789QZ here"
    rows = [{"note": secret, "api_key": f"value-{i}", "status": "confirmed", "node": "agent"} for i in range(50)]
    value = {"steps": rows, "plain": [{"status": "confirmed"} for _ in range(5)]}
    masked = r(value)
    for row in masked["steps"]:
        assert row["note"].startswith("aws [redacted api-key") and "AKIAFAKE" not in row["note"]
        assert row["api_key"].startswith("[redacted api-key") and row["status"] == "confirmed"
    assert len({row["api_key"] for row in masked["steps"]}) == 50  # each value's own mark
    assert masked["plain"] is value["plain"]  # nothing to mask: the same list, not a copy
    long_secret = "x" * 600 + " password=hunter2hunter2"
    twice = r([long_secret, long_secret])
    assert all("hunter2" not in t for t in twice)
