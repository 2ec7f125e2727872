"""The CLI's JSON text is ``json.dumps(value, indent=2, ensure_ascii=False)`` character for character, written
faster; what ``json`` refuses it refuses alike."""

from __future__ import annotations

import enum
import json

import pytest

from inspector.cli.json_text import indented


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


VALUES = [
    {},
    [],
    "plain",
    0,
    None,
    {"nested": {"empty": {}, "none": [], "deeper": [[[]], [{}], {"a": [1, {"b": ()}]}]}},
    [1, -2, 2**70, 2.5, -0.0, 1e-7, 1e300, float("nan"), float("inf"), -float("inf"), True, False, None],
    {"text": "é ü 中 \u2028 \u202e \x00 \x1b[31m \"quoted\" back\\slash \t\n\r", "lone": "\ud800", "emoji": "\U0001f600"},
    {1: "int key", 2.5: "float key", False: "bool key", None: "null key", Level.HIGH: "enum key"},
    {"subclasses": [Level.HIGH, Name("named"), (1, (2, [3]))], Name("key"): True},
]


@pytest.mark.parametrize("value", VALUES)
def test_the_text_is_json_dumps_indented(value):
    assert indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_what_json_refuses_is_refused_alike():
    cycle: list = []
    cycle.append(cycle)
    deep: list = []
    for _ in range(20_000):
        deep = [deep]
    for value in ({"when": object()}, {(1, 2): "tuple key"}, cycle, deep):
        with pytest.raises(Exception) as theirs:
            json.dumps(value, indent=2, ensure_ascii=False)
        with pytest.raises(type(theirs.value)) as ours:
            indented(value)
        assert str(ours.value) == str(theirs.value)
