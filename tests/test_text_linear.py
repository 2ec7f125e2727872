"""Every transform of text from the data runs in time linear in the text's length, on the inputs built to make
a pattern backtrack (``benchmarks/worst_text.py``): at 100,000 characters each costs at most a small multiple of
plain prose of the same length, where a quadratic pattern takes minutes (the e-mail pattern the inert path had
took 104 s over 120,000 letters). Growth from 10k to 1M characters, and the cost per MB against plain text, are
printed by ``benchmarks/bench_text_safety.py`` (timing growth between two small sizes is dominated by CPU caches
on a shared machine, so it is not asserted here)."""

from __future__ import annotations

import time

import pytest

from benchmarks.worst_text import WORST, plain
from inspector.profiles.deerflow.messages import parse_upload_block, strip_human_blocks, strip_marker_tags
from inspector.safety.inert_text import inert_markdown, links_in, literal
from inspector.safety.redaction import Redactor

SIZE = 100_000
TRANSFORMS = {"inert_markdown": inert_markdown, "literal": literal, "redaction": Redactor().text,
              "redaction_of_a_name": Redactor().name, "links_in": links_in,
              "strip_human_blocks": strip_human_blocks, "strip_marker_tags": strip_marker_tags,
              "parse_upload_block": parse_upload_block}


def _best(fn, text: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_worst_cases_cost_a_small_multiple_of_plain_text(transform):
    fn = TRANSFORMS[transform]
    baseline = max(_best(fn, plain(SIZE)), 0.005)
    slow = {}
    for name, make in WORST.items():
        spent = _best(fn, make(SIZE), repeat=2)
        if spent > 30 * baseline + 0.3:  # generous for a shared machine; a quadratic pattern is 1,000x here
            slow[name] = f"{spent * 1000:.0f} ms, plain {baseline * 1000:.0f} ms"
    assert slow == {}


def test_the_worst_cases_would_catch_a_backtracking_pattern():
    """The check above can fail: the e-mail pattern the inert path used to have is quadratic on them."""
    import re

    quadratic = re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+")
    size = 10_000
    baseline = max(_best(quadratic.findall, plain(size)), 0.0001)
    assert _best(quadratic.findall, WORST["letters"](size), 1) > 20 * baseline + 0.1


def test_links_and_addresses_are_still_found():
    text = "mail a.b+c@mail.example.org or see www.example.com and https://example.com/x now"
    out = inert_markdown(text)
    assert "`a.b+c@mail.example.org`" in out and "`www.example.com`" in out and "`https://example.com/x`" in out
    assert inert_markdown("name@host") == "name@host"  # no dot in the domain: not an address GitHub links
