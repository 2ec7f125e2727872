"""Generic LangGraph: the base every thread gets.

It knows what LangGraph itself writes (checkpoints, writes, its internal channels,
``Overwrite``, delta channels) and no app's reducers: a field's reducer is unknown
unless the operator names the app's schema (``--schema``), so replay says
"unverified", never "mismatch", and no app's texts or lints apply.
"""

from __future__ import annotations

from ..schema.model import Schema
from . import Evidence, Profile, ThreadFacts

GENERIC_SCHEMA = Schema("LangGraph (reducers unknown)", (), {})

# Advice in LangGraph's terms, for any app; an app's profile may say it in its own (``Profile.texts``).
TEXTS = {
    "health.unsummarised.fix": "summarise or trim old messages (a summarisation step or middleware in the graph)",
    "health.dangling.fix": "append a ToolMessage for each unanswered call or fork from the checkpoint before the call",
    "files.none": "read with the {title} profile, which names no files in a thread's state: there are none to look for",
    "health.base64.fix": "show images to the model only for the request (not in state), or keep a file reference "
                         "in state and read the bytes when the model needs them",
    "health.image-context.summary": "{count} transient image message(s)",
    "health.image-context.why": "the app shows images to the model through a message added before the model call and "
                                "removed after it; every checkpoint in between stores the base64 again",
    "health.image-context.fix": "nothing to repair in the thread; prune old checkpoints to keep the bytes out of the store",
    "what-if.viewed-images": "only entries holding base64 make this large",
    "what-if.image-context": "keeping image bytes out of checkpointed messages would save this",
    "replay.sandbox-conflict": "two different sandboxes in one thread, a sandbox lifecycle bug",
    "retention.branch.kind": "branch",
    "retention.branch.break": "branch thread {branch} was branched from {checkpoint}; that checkpoint would go, so the "
                              "branch would lose the point it came from",
}


# LangGraph's message list (``MessagesState``, ``add_messages``) as a conversation; every other field as JSON.
FIELD_VIEWS = {"messages": "conversation"}


def evidence(facts: ThreadFacts) -> list[str]:
    """Every LangGraph thread is one; the base needs no clue."""
    return []


PROFILE = Profile(
    name="langgraph",
    title="LangGraph",
    description="any LangGraph app: LangGraph's own channels and rules, no app's reducers or texts",
    evidence=Evidence(evidence),
    schema=GENERIC_SCHEMA,
    texts=TEXTS,
    field_views=FIELD_VIEWS,
    searched={"messages": "messages"},  # read only where its value looks like LangChain messages
    searches_strings=True,
)
