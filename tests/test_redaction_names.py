"""The redaction rules on secrets that used to slip the mask, both ways: a key after a URL-encoded character, a key
with an invisible character inside, a URL user of any length, ``passwd=a;b``, a secret's name of any length,
headers kept as ``[name, value]`` pairs; and names from the data (nodes, namespaces, task paths), masked by their
shapes while a name that merely says "token" stays readable."""

from __future__ import annotations

import re

import pytest

from inspector.safety.redaction import Redactor, is_secret_key

MARK = re.compile(r"\[redacted ([a-z-]+) · ([^·]+) · #([0-9a-f]{6})\]")
KEY = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"


@pytest.fixture(scope="module")
def r() -> Redactor:
    return Redactor()


@pytest.mark.parametrize("text, secret, kept", [
    (f"https://search.example.com/?q=%20{KEY}&lang=en", KEY, "https://search.example.com/?q=%20"),
    (f"redirect=%2F{KEY}%2F", KEY, "redirect=%2F"),
    ("token%3DAKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "token%3D"),
    ("fetch https://api.example.com/v1?h=Bearer%20abc123def456ghi789jkl", "abc123def456ghi789jkl", "?h=Bearer%20"),
])
def test_a_key_after_a_url_encoded_character_is_masked(r, text, secret, kept):
    masked = r.text(text)
    assert secret not in masked and kept in masked and MARK.search(masked).group(1) in ("api-key", "bearer-token")


@pytest.mark.parametrize("text", [
    "hello%20world%21 and 100%25 sure",
    "see https://example.com/a%20b?q=sk-learn%20tutorial",
    "%2Fusr%2Flocal%2Fbin and %E2%9C%93 done",
])
def test_ordinary_url_encoded_text_is_left_alone(r, text):
    assert r.text(text) == text


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\\u200b"])
def test_a_key_with_an_invisible_character_inside_is_masked_and_the_rest_kept_as_written(r, invisible):
    for key in (KEY[:15] + invisible + KEY[15:], "s" + invisible + KEY[1:], invisible.join(KEY[:12]) + KEY[12:]):
        text = f"my key {key} \u200d\U0001F469\u200d\U0001F4BB{invisible} end"
        masked = r.text(text)
        assert masked.startswith("my key [redacted api-key") and masked.endswith(
            f"] \u200d\U0001F469\u200d\U0001F4BB{invisible} end"), masked
        assert MARK.search(masked).group(0) == MARK.search(r.text(KEY)).group(0)  # the key's own mark


def test_invisible_characters_around_and_between_secrets_stay(r):
    text = "x \u200b\u200b AKIAFAKE\u200b0123456789QZ\u200b\u200b y password=\u200bhunter2\u200b z"
    masked = r.text(text)
    assert "AKIAFAKE" not in masked and "hunter2" not in masked
    assert masked.startswith("x \u200b\u200b [redacted api-key") and masked.endswith("\u200b z")
    assert "]\u200b\u200b y password=\u200b[redacted password" in masked


@pytest.mark.parametrize("text", [
    "family \U0001F468\u200d\U0001F469\u200d\U0001F467 and a technologist \U0001F469\u200d\U0001F4BB",
    "soft\u00adhyphen and zero\u200bwidth and a word\u2060joiner, a BOM \ufeffhere",
    "escaped \\u200b and \\u200d in a repr",
])
def test_texts_with_invisible_characters_and_no_secret_are_the_same_object(r, text):
    assert r.text(text) is text


@pytest.mark.parametrize("user", ["svc" * 70, "u" * 1000])
def test_a_url_user_of_any_length_does_not_hide_the_password(r, user):
    masked = r.text(f"connect postgresql://{user}:UrlUserPw7788@db.internal/app now")
    assert "UrlUserPw7788" not in masked and f"postgresql://{user}:[redacted url-password" in masked
    assert masked.endswith("]@db.internal/app now")
    long_password = "p" * 300
    assert long_password not in r.text(f"redis://u:{long_password}@cache")


@pytest.mark.parametrize("text", [
    "https://alice@example.com/docs and ssh://git@github.com:org/repo.git",
    "postgresql://db.internal:5432/app and http://localhost:8080/x",
    "mailto:" + "a" * 300 + "@example.com",
])
def test_urls_without_a_password_are_left_alone(r, text):
    assert r.text(text) == text


@pytest.mark.parametrize("text, secret, kept", [
    ("set passwd=abc;defTail99 then go", "defTail99", " then go"),
    ("password=first,secondPart7 next", "secondPart7", " next"),
    ("Server=db;User Id=app;Password=pw1;pw2Tail;Database=app;", "pw2Tail", ";Database=app;"),
])
def test_a_value_goes_on_past_a_semicolon_or_comma_up_to_the_next_name(r, text, secret, kept):
    masked = r.text(text)
    assert secret not in masked and kept in masked and MARK.search(masked).group(1) == "password"


@pytest.mark.parametrize("text, masks", [
    ("passwd is the file that lists accounts; see passwd(5), then done", 0),
    ("the password; the token, and the secret are not set", 0),
    ("password=hunter2; next", 1),  # a value ends at "; "
    ("passwd=abc, then the rest", 1),
])
def test_passwd_as_a_word_and_separators_after_a_value_stay(r, text, masks):
    masked = r.text(text)
    assert masked.count("[redacted") == masks
    assert masked.endswith(text[text.index(";" if ";" in text else ","):])


def test_a_secret_name_of_any_length_names_a_secret(r):
    name = "setting_" * 16 + "db_password"
    assert len(name) > 100 and is_secret_key(name) and is_secret_key("x" * 5000 + "_api_key")
    assert not is_secret_key("setting_" * 16 + "password_policy_url") and not is_secret_key("t" * 500 + "_tokens")
    masked = r({name: "LongNamePw1", "note": f"{name}=LongNameText2 today"})
    assert masked[name].startswith("[redacted password")
    assert masked["note"].startswith(f"{name}=[redacted password") and masked["note"].endswith(" today")


@pytest.mark.parametrize("pairs", [
    [["Authorization", "Basic dXNlcjpwYXNz"], ["Content-Type", "application/json"]],
    [("Authorization", "Basic dXNlcjpwYXNz"), ("Content-Type", "application/json")],
    [(b"authorization", b"Basic dXNlcjpwYXNz"), (b"content-type", b"application/json")],
])
def test_headers_as_pairs_mask_the_value_after_a_secret_name(r, pairs):
    masked = r({"headers": pairs})["headers"]
    assert "dXNlcjpwYXNz" not in str(masked) and str(masked[0][1]).startswith("[redacted authorization")
    assert masked[1] is pairs[1] and type(masked[0]) is type(pairs[0])


def test_pairs_that_hold_no_secret_stay(r):
    value = {"sizes": [("api_key", 1234), ("messages", 99)], "words": ["password", "passwd", "pwd"],
             "fields": ["token_count", "512"], "pair": ["Content-Type", "text/plain"]}
    assert r(value) is value


@pytest.mark.parametrize("text, secret", [
    ('headers=[["Authorization", "Basic PairText5566"], ["Content-Type", "application/json"]]', "PairText5566"),
    ("headers=[('X-Api-Key', 'pairKey12345'), ('Accept', '*/*')]", "pairKey12345"),
    ('("password", "pairPw999")', "pairPw999"),
])
def test_pairs_in_text_mask_the_value_after_a_secret_name(r, text, secret):
    masked = r.text(text)
    assert secret not in masked and MARK.search(masked)
    assert ("Content-Type" in text) <= ('["Content-Type", "application/json"]' in masked)


@pytest.mark.parametrize("text", [
    '["password", "passwd", "pwd"]',
    'fields = ("token", "secret", "key")',
    '["Content-Type", "application/json"]',
])
def test_lists_of_words_in_text_are_not_pairs(r, text):
    assert r.text(text) == text


@pytest.mark.parametrize("name, secret", [
    ("sk-proj-NodeFake0a1B2c3D4e5F6g7H8i9J0k", "sk-proj-NodeFake"),
    ("ghp_NodeSubFake0123456789abcdefABCDEF:1f0e6c1b-0000-6000-8000-000000000001", "ghp_NodeSub"),
    ("outer:1f0e-1|AKIANODEFAKE01234567:1f0e-2", "AKIANODE"),
    ("~__pregel_pull, sk-proj-NodeFake0a1B2c3D4e5F6g7H8i9J0k", "sk-proj-NodeFake"),
    ("token=abcdef123", "abcdef123"),
])
def test_key_shapes_in_names_are_masked(r, name, secret):
    masked = r.name(name)
    assert secret not in masked and MARK.search(masked)


@pytest.mark.parametrize("name", [
    "get_token:1f0e6c1b-0000-6000-8000-000000000001",
    "password:1f0e6c1b-0000-6000-8000-000000000001|token_counter:1f0e6c1b-0000-6000-8000-000000000002",
    "~__pregel_pull, password_check",
    "branch:to:get_token",
    "research:3f2a|fetch:9c1b",
])
def test_names_that_say_token_or_password_stay_readable(r, name):
    assert r.name(name) is name


def test_the_same_secret_gets_the_same_mark_as_a_name_and_in_text(r):
    node = "ghp_NodeSubFake0123456789abcdefABCDEF"
    assert r.name(f"{node}:task-1").split(":")[0] == r.text(f"node {node} ran").split(" ", 1)[1][:-4]


def test_namespaces_are_masked_in_output_and_kept_for_lookups(r):
    ns = "ghp_NodeSubFake0123456789abcdefABCDEF:task-1"
    row = {"checkpoint_ns": ns, "task_path": "~__pregel_pull, ghp_NodeSubFake0123456789abcdefABCDEF",
           "task_id": "task-1", "thread_id": "t", "metadata": {"parents": {ns: "cp-1", "get_token:t2": "cp-2"}}}
    kept = r(row)
    assert kept["checkpoint_ns"] == ns  # the key the views look a checkpoint up by
    assert "ghp_" not in kept["task_path"] and kept["task_id"] == "task-1"
    assert "get_token:t2" in kept["metadata"]["parents"] and "ghp_" not in str(kept["metadata"]["parents"])
    shown = r(row, names=True)
    assert shown["checkpoint_ns"] == r.name(ns) and shown["checkpoint_ns"].endswith(":task-1")
    assert r({"checkpoint_ns": "get_token:t1"}, names=True) == {"checkpoint_ns": "get_token:t1"}
