"""Texts of a given length built to make a text transform backtrack: the worst cases the safety paths
must still handle in linear time (``benchmarks/bench_text_safety.py`` times them; the tests and the
hostile corpus in ``tests/hostile_corpus.py`` plant them).

Each entry names the pattern it aims at. ``plain(n)`` is ordinary prose of the same length, the
baseline every ratio is taken against.
"""

from __future__ import annotations

import base64
import random
from typing import Callable

PROSE = ("The quarterly report compares revenue across regions; see the source tables for details. "
         "Numbers are rounded to the nearest thousand, and totals may differ by one.\n")


def _repeat(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


def plain(n: int) -> str:
    """Ordinary prose, ``n`` characters."""
    return _repeat(PROSE, n)


def _base64_run(n: int) -> str:
    rng = random.Random(7)
    return base64.b64encode(rng.randbytes(n * 3 // 4 + 3)).decode()[:n]


WORST: dict[str, Callable[[int], str]] = {
    # the e-mail branch of the linkify pattern: a local part that never reaches an "@"
    "letters": lambda n: "a" * n,
    "dotted-words": lambda n: _repeat("a.b-c+d_", n),
    "at-signs": lambda n: _repeat("a@b", n),
    "domains": lambda n: "x@" + _repeat("a.", n - 2),
    # URL and www branches: many starts
    "www": lambda n: _repeat("www.", n),
    "schemes": lambda n: _repeat("http://a:", n),
    # secret names without a value, and names followed by long runs of spaces
    "secret-words": lambda n: _repeat("password token secret ", n),
    "names-and-spaces": lambda n: _repeat("token" + " " * 60 + ":", n),
    "bearer": lambda n: _repeat("Bearer ", n),
    "key-prefixes": lambda n: _repeat("sk-AKIA ghp_", n),
    "hyphen-key-starts": lambda n: _repeat("-sk-", n),
    "underscore-key-starts": lambda n: _repeat("_sk-", n),
    "jwt-starts": lambda n: _repeat("eyJa.", n),
    "pem-begins": lambda n: _repeat("-----BEGIN A ", n - 40) + "-----BEGIN RSA PRIVATE KEY-----",
    # Markdown: backtick runs, fences, line markers, underscores and colons
    "backticks": lambda n: _repeat("`|``", n),
    "fences": lambda n: _repeat("```\n", n),
    "digits": lambda n: "1" * n,
    "underscores": lambda n: _repeat("_a_:", n),
    "spaces": lambda n: " " * n,
    # DeerFlow's message blocks and internal tags: openings that never close
    "unclosed-blocks": lambda n: _repeat("<uploaded_files>", n),
    "unclosed-tags": lambda n: _repeat("<memory a ", n),
    "upload-lines": lambda n: "<uploaded_files>\n" + _repeat("- (1 ( ", n - 40) + "\n</uploaded_files>",
    # a data URL holding an image: what the masking used to skip
    "base64": _base64_run,
    # URL users and passwords of any length: runs that never reach ``:`` or ``@``, schemes that start over and over
    "url-user-run": lambda n: "s://" + "u" * (n - 4),
    "url-password-run": lambda n: "s://u:" + "p" * (n - 6),
    "url-schemes-dotted": lambda n: _repeat("a.a.a.a.a.a.a.a.a.a.a://" + "u" * 40 + ":", n),
    # keys after a URL-encoded character, and key starts that stop one short
    "percent-keys": lambda n: _repeat("%2Fsk-" + "a" * 19 + "%", n),
    # invisible characters (zero-width spaces, joiners) and their escapes, in and around key starts
    "zero-width": lambda n: _repeat("sk-\u200bab\u200d", n),
    "zero-width-escapes": lambda n: _repeat("sk-\\u200bab\\u200d", n),
    # values that go on past ``;``, each ``;`` read ahead for the next name
    "semicolon-values": lambda n: _repeat("passwd=a;" + "b" * 60 + ";", n),
    # a secret's name of any length, and ``["name", …`` pairs that never close
    "long-name": lambda n: _repeat("setting_", n - 12) + "db_password=",
    "header-pairs": lambda n: _repeat('["authorization", "x", ', n),
}


def texts(n: int) -> dict[str, str]:
    """Every worst case at ``n`` characters."""
    return {name: make(n) for name, make in WORST.items()}
