"""Depth is a property of one value: a value nested past ``depth.MAX_DEPTH`` is reported as too deep on its
own field (JSON, msgpack, metadata, writes, bundles), and every walker handles any value that passes."""

from __future__ import annotations

import json

import msgpack
import pytest
from corpus.hostile_structure import deep_msgpack, nested_ext

from inspector.bundle.masking import Masker
from inspector.bundle.rewrite import dump_msgpack, load_msgpack
from inspector.diff.nested import first_difference, nested_changes
from inspector.formatting import dumps
from inspector.safety.redaction import redact
from inspector.settings import load_settings
from inspector.sizes.health_base64 import payloads
from inspector.store.carried import decode_value
from inspector.store.decode import Opaque, decode_typed, unpack_msgpack
from inspector.store.depth import MAX_DEPTH, TooDeep, json_depth, json_object, loads, too_deep

pytestmark = pytest.mark.timeout(60)


def nested(depth: int, leaf: object = "api_key=sk-proj-T3stFakeKey0123456789abcdefGHIJKLmnop") -> object:
    """Maps and lists alternating, ``depth`` levels in all."""
    value = leaf
    for level in range(depth):
        value = {"password": value, "n": level} if level % 2 else [value, level]
    return value


def test_json_depth_is_measured_without_parsing():
    assert json_depth("[" * 100_000) == 100_000
    assert json_depth('{"a": "[[[[\\"{{{", "b": [[1], [[2]]]}') == 4
    assert json_depth("42") == 0
    with pytest.raises(TooDeep, match=f"nested deeper than {MAX_DEPTH} levels"):
        loads("[" * 100_000)
    assert loads(json.dumps(nested(MAX_DEPTH))) == nested(MAX_DEPTH)
    assert json_object(b"[" * 100_000) == {"__too_deep__": f"nested deeper than {MAX_DEPTH} levels; not shown"}
    assert json_object(b'{"step": 1}') == {"step": 1} and json_object(b"not json") is None


def test_too_deep_walks_without_recursion():
    assert not too_deep(nested(MAX_DEPTH)) and too_deep(nested(MAX_DEPTH + 1))
    value: object = None
    for _ in range(200_000):
        value = [value]
    assert too_deep(value)


def test_a_deep_msgpack_value_is_too_deep_on_its_own_field():
    decoded = unpack_msgpack(deep_msgpack(), "notes")
    assert isinstance(decoded.value, Opaque) and decoded.value.reason == f"nested deeper than {MAX_DEPTH} levels"
    assert [(p.field, p.kind) for p in decoded.problems] == [("notes", "too-deep")]
    carried, _ = decode_value(deep_msgpack(), 0, len(deep_msgpack()), "notes")
    assert isinstance(carried.value, Opaque) and carried.problems[0].kind == "too-deep"
    fine = msgpack.packb(nested(MAX_DEPTH))
    assert unpack_msgpack(fine).value == nested(MAX_DEPTH)
    assert decode_typed("json", b"[" * 100_000, "meta").problems[0].kind == "too-deep"


def test_extension_values_nested_in_one_another_are_too_deep_not_a_crash():
    for decoded in (unpack_msgpack(nested_ext(), "w"), decode_value(nested_ext(), 0, len(nested_ext()), "w")[0]):
        assert isinstance(decoded.value, Opaque) and "extension values nested deeper than 16" in decoded.value.reason
    with pytest.raises(TooDeep, match="extension values"):
        load_msgpack(nested_ext())
    assert unpack_msgpack(nested_ext(10)).value["__type__"] == "m.n"  # a few levels are plain data


def test_a_list_grown_by_a_deep_item_is_too_deep_when_decoded_against_its_parent():
    parent = msgpack.packb([{"type": "human", "content": "hi"}])
    _, carried = decode_value(parent, 0, len(parent), "messages")
    child = msgpack.Packer().pack_array_header(2) + parent[1:] + deep_msgpack()
    decoded, again = decode_value(child, 0, len(child), "messages", carried)
    assert isinstance(decoded.value, Opaque) and again is None


def test_bundles_leave_a_too_deep_value_out():
    with pytest.raises(TooDeep):
        load_msgpack(deep_msgpack())
    tree, _ = load_msgpack(dump_msgpack(nested(MAX_DEPTH)))
    assert tree == nested(MAX_DEPTH)


def _at_stack_depth(frames: int, work):
    """``work()`` called ``frames`` Python frames down, as a page's code runs under Streamlit's own frames."""
    if frames == 0:
        return work()
    return _at_stack_depth(frames - 1, work)


@pytest.mark.parametrize("walker", [
    lambda v: redact(v),
    lambda v: dumps(v),
    lambda v: json.dumps(v),
    lambda v: nested_changes(v, nested(MAX_DEPTH, "other")),
    lambda v: first_difference(v, nested(MAX_DEPTH, "other")),
    lambda v: payloads(v, "field"),
    lambda v: Masker(load_settings()).value(v, "values"),
    lambda v: dump_msgpack(v),
], ids=["redaction", "cli-json", "json", "diff", "first-difference", "base64-scan", "bundle-mask", "bundle-write"])
def test_every_walker_handles_the_deepest_value_that_passes_the_guard(walker):
    value = nested(MAX_DEPTH)
    assert not too_deep(value)
    assert _at_stack_depth(250, lambda: walker(value)) is not None
