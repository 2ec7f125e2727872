"""DeerFlow's thread state: the schema, its nine reducers, and which reducer owns which channel.

The reducers live in ``thread_state_reducers`` (importable without LangGraph) and are
re-exported here; they follow DeerFlow's main branch (``deerflow/agents/thread_state.py``)
branch for branch: the demo agent compiles its graph over ``ThreadState``, and
``inspector.schema`` reads it as the default schema, so the diff, the replay check and
the delta rebuild use these reducers. None of them mutates its arguments.
"""

from __future__ import annotations

from typing import Annotated, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from .thread_state_reducers import (  # noqa: F401 (re-exported: the reducers and their entries' shapes)
    DELEGATIONS_MAX_ENTRIES,
    SKILL_CONTEXT_MAX_ENTRIES,
    SKILL_DESCRIPTION_MAX_CHARS,
    TERMINAL_STATUSES,
    BackgroundTaskState,
    DelegationEntry,
    GoalState,
    PromotedTools,
    SandboxConflict,
    SandboxState,
    SkillEntry,
    ThreadDataState,
    ViewedImageData,
    merge_artifacts,
    merge_delegations,
    merge_goal,
    merge_promoted,
    merge_sandbox,
    merge_skill_context,
    merge_todos,
    merge_viewed_images,
    normalise_skill_entry,
)

# -- the schema --------------------------------------------------------------------


class ThreadState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    sandbox: Annotated[NotRequired[SandboxState | None], merge_sandbox]
    thread_data: NotRequired[ThreadDataState | None]
    title: NotRequired[str | None]
    artifacts: Annotated[list[str], merge_artifacts]
    todos: Annotated[list | None, merge_todos]
    goal: Annotated[GoalState | None, merge_goal]
    uploaded_files: NotRequired[list[dict] | None]
    viewed_images: Annotated[dict[str, ViewedImageData], merge_viewed_images]
    promoted: Annotated[PromotedTools | None, merge_promoted]
    delegations: Annotated[list[DelegationEntry], merge_delegations]
    skill_context: Annotated[list[SkillEntry], merge_skill_context]
    summary_text: NotRequired[str | None]
    background_tasks: NotRequired[list[BackgroundTaskState]]
