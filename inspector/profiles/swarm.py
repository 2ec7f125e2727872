"""Multi-agent handoffs with langgraph-swarm: agents that pass the conversation to each other with
``transfer_to_<agent>`` tools, the swarm's ``active_agent`` saying who speaks.

Evidence: the root graph writes ``active_agent`` beside ``messages`` and routes to agent nodes
(``branch:to:<agent>``) while writing no middleware hook of its own. Schema: langgraph-swarm's
``SwarmState`` (``messages`` by ``add_messages``, ``active_agent`` replaced), from the installed
package, built when a reducer or a field is first asked for; without it every reducer is unknown.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..schema.model import DeferredSchema
from . import Evidence, Profile, ThreadFacts
from .shape_rules import MESSAGES, ShapeRule, judge, kind_is

ACTIVE_AGENT = "active_agent"
SHAPES = (MESSAGES, ShapeRule(ACTIVE_AGENT, "agent name (a str)", kind_is("str")))


def evidence(facts: ThreadFacts) -> list[str]:
    if ACTIVE_AGENT not in facts.channels or "messages" not in facts.channels:
        return []
    if judge(SHAPES, facts, "langgraph-swarm").foreign:
        return []
    agents = sorted(c.removeprefix("branch:to:") for c in facts.channels
                    if c.startswith("branch:to:") and "." not in c and c != "branch:to:model")
    return [f"active_agent beside messages, {len(agents)} agent node(s)"] if agents else []


@cache
def swarm_schema() -> Any:
    try:
        from langgraph_swarm import SwarmState
    except ImportError:
        return None
    from ..schema.reading import schema_of

    return schema_of(SwarmState, "langgraph-swarm SwarmState")


# built when a reducer or a field is first asked for (replay, diff, the state's fields), once per process
SCHEMA = DeferredSchema(swarm_schema, "langgraph-swarm")


PROFILE = Profile(
    name="swarm",
    title="langgraph-swarm",
    description="multi-agent handoffs with langgraph-swarm: transfer_to_* tools and the active_agent channel",
    evidence=Evidence(evidence, SHAPES),
    schema=SCHEMA,
    searched={"messages": "messages"},
)
