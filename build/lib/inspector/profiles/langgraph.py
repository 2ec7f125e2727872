"""Generic LangGraph: the base every thread gets.

It knows what LangGraph itself writes (checkpoints, writes, its internal channels,
``Overwrite``, delta channels) and no app's reducers: a field's reducer is unknown
unless the operator names the app's schema (``--schema``), so replay says
"unverified", never "mismatch", and no app's texts or lints apply.
"""

from __future__ import annotations

from ..schema.model import Schema
from . import Profile, ThreadFacts

GENERIC_SCHEMA = Schema("LangGraph (reducers unknown)", (), {})


def evidence(facts: ThreadFacts) -> list[str]:
    """Every LangGraph thread is one; the base needs no clue."""
    return []


PROFILE = Profile(
    name="langgraph",
    title="LangGraph",
    description="any LangGraph app: LangGraph's own channels and rules, no app's reducers or texts",
    evidence=evidence,
    schema=lambda: GENERIC_SCHEMA,
)
