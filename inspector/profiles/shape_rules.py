"""Shapes a profile expects of its channels (``Evidence.shapes``), and how a thread's shapes are judged by them.

Two apps may share a field's name but not its type: DeerFlow's ``viewed_images`` is a map keyed by path
with a map per image, another app's may be a list of URLs. A ``ShapeRule`` says what an app's channel holds
(``fits(shape)``: True when the shape is the app's, False when it is foreign, None when the value cannot
tell, an empty list or None); ``judge`` sorts a thread's newest values into the channels that fit and the
ones that are foreign, and says each foreign one in words ("viewed_images is a list of str, not DeerFlow's
map keyed by path"). A rule marked ``distinctive`` names a channel only that app declares, so a fitting
value counts *for* the app; any foreign value counts against it.

The predicates below are the pieces rules are made of.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..store.shapes import KEYS, Shape
from .fact_model import ThreadFacts

Fits = Callable[[Shape], "bool | None"]


@dataclass(frozen=True)
class ShapeRule:
    """What an app's ``channel`` holds: ``expected`` in words (``map keyed by path``), ``fits(shape)``, and
    whether the channel is ``distinctive`` of the app (a fitting value is evidence for it)."""

    channel: str
    expected: str
    fits: Fits
    distinctive: bool = True


@dataclass(frozen=True)
class Judged:
    """A thread's newest values against one profile's rules: the channels that fit, and the foreign ones
    with the words that say so."""

    fits: tuple[str, ...] = ()
    foreign: tuple[str, ...] = ()
    against: tuple[str, ...] = ()  # "viewed_images is a list of str, not DeerFlow's map keyed by path"

    def distinctive_fits(self, rules: Iterable[ShapeRule]) -> list[str]:
        marked = {rule.channel for rule in rules if rule.distinctive}
        return [name for name in self.fits if name in marked]

    def distinctive_foreign(self, rules: Iterable[ShapeRule]) -> list[str]:
        marked = {rule.channel for rule in rules if rule.distinctive}
        return [name for name in self.foreign if name in marked]


def judge(rules: tuple[ShapeRule, ...], facts: ThreadFacts, title: str) -> Judged:
    """Each rule's channel, where the thread's newest checkpoint holds it, judged by its shape (once per facts)."""
    key = (id(rules), title)  # rules are each profile's constant tuple
    found = facts.judged.get(key)
    if found is None:
        found = facts.judged[key] = _judge(rules, facts, title)
    return found


def _judge(rules: tuple[ShapeRule, ...], facts: ThreadFacts, title: str) -> Judged:
    fits, foreign, against = [], [], []
    for rule in rules:
        shape = facts.shape(rule.channel)
        if shape is None:
            continue
        verdict = rule.fits(shape)
        if verdict is True:
            fits.append(rule.channel)
        elif verdict is False:
            foreign.append(rule.channel)
            against.append(f"{rule.channel} is {shape.describe()}, not {title}'s {rule.expected}")
    return Judged(tuple(fits), tuple(foreign), tuple(against))


# -- the pieces rules are made of ---------------------------------------------------------------


def untold(shape: Shape) -> bool:
    """A value that tells nothing of its type: None, an empty list or map."""
    return shape.kind == "none" or (shape.kind in ("list", "map") and shape.size == 0)


def _items(shape: Shape, test: Callable[[Shape], bool]) -> bool | None:
    """Whether the first items read pass ``test`` (None: none was read)."""
    if not shape.items:
        return None
    return all(test(item) for item in shape.items)


def list_of(test: Callable[[Shape], bool]) -> Fits:
    """A list whose items pass ``test``."""
    def fits(shape: Shape) -> bool | None:
        if untold(shape):
            return None
        return _items(shape, test) if shape.kind == "list" else False
    return fits


def map_with(*keys: str, values: Callable[[Shape], bool] | None = None) -> Fits:
    """A map holding each of ``keys`` (among its first keys), its values passing ``values``."""
    def fits(shape: Shape) -> bool | None:
        if untold(shape):
            return None
        if shape.kind != "map":
            return False
        if keys and not all(key in shape.keys for key in keys):  # foreign only when every key was read
            return False if shape.size is not None and shape.size <= KEYS and not shape.cut else None
        return True if values is None else (_items(shape, values) is not False)
    return fits


def map_keyed_by(kind: str, values: Callable[[Shape], bool] | None = None) -> Fits:
    """A map whose keys are of ``kind`` (``path``, ``name``), its values passing ``values``."""
    def fits(shape: Shape) -> bool | None:
        if untold(shape):
            return None
        if shape.kind != "map" or (shape.key_kinds and set(shape.key_kinds) != {kind}):
            return False
        return True if values is None else (_items(shape, values) is not False)
    return fits


def kind_is(*kinds: str) -> Fits:
    """A value of one of ``kinds`` (``str``, ``map``, ...)."""
    def fits(shape: Shape) -> bool | None:
        if shape.kind == "none":
            return None
        return shape.kind in kinds
    return fits


def is_message(shape: Shape) -> bool:
    return shape.kind == "message"


def is_map(*keys: str) -> Callable[[Shape], bool]:
    """An item that is a map holding ``keys`` among its first keys (any map when none are named)."""
    def test(shape: Shape) -> bool:
        return shape.kind == "map" and all(key in shape.keys for key in keys)
    return test


def is_kind(*kinds: str) -> Callable[[Shape], bool]:
    def test(shape: Shape) -> bool:
        return shape.kind in kinds
    return test


# LangChain's messages (``add_messages``): every LangChain-based app's ``messages``; not distinctive.
MESSAGES = ShapeRule("messages", "LangChain messages", list_of(is_message), distinctive=False)
