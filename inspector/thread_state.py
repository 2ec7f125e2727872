"""DeerFlow's thread state: the schema, its reducers, and which reducer owns which channel.

This is the one place the reducers live. The demo agent compiles its graph over
``ThreadState``; the diff and the replay check look reducers up in ``REDUCERS``.
"""

from __future__ import annotations

import typing
from typing import Annotated, Any, Callable, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class SandboxState(TypedDict):
    sandbox_id: NotRequired[str | None]


class ThreadDataState(TypedDict):
    workspace_path: NotRequired[str | None]
    uploads_path: NotRequired[str | None]
    outputs_path: NotRequired[str | None]


class ViewedImageData(TypedDict):
    base64: str
    mime_type: str


def merge_artifacts(existing: list[str] | None, new: list[str] | None) -> list[str]:
    """Concatenate and de-duplicate, keeping the first occurrence; paths are not normalised."""
    if existing is None:
        return list(new or [])
    if new is None:
        return existing
    return list(dict.fromkeys(existing + new))


def merge_viewed_images(
    existing: dict[str, ViewedImageData] | None,
    new: dict[str, ViewedImageData] | None,
) -> dict[str, ViewedImageData]:
    """Shallow merge, new wins per key. ``None`` keeps everything; ``{}`` clears everything."""
    if existing is None:
        return dict(new or {})
    if new is None:
        return existing
    if len(new) == 0:
        return {}
    return {**existing, **new}


class ThreadState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    sandbox: NotRequired[SandboxState | None]
    thread_data: NotRequired[ThreadDataState | None]
    title: NotRequired[str | None]
    artifacts: Annotated[list[str], merge_artifacts]
    todos: NotRequired[list | None]
    uploaded_files: NotRequired[list[dict] | None]
    viewed_images: Annotated[dict[str, ViewedImageData], merge_viewed_images]


Reducer = Callable[[Any, Any], Any]


def reducers_of(schema: type) -> dict[str, Reducer]:
    """Channel name -> reducer, read from the ``Annotated`` metadata of ``schema``'s fields."""
    table: dict[str, Reducer] = {}
    for name, hint in typing.get_type_hints(schema, include_extras=True).items():
        while typing.get_origin(hint) in (NotRequired, typing.Required):
            hint = typing.get_args(hint)[0]
        if typing.get_origin(hint) is Annotated:
            for meta in hint.__metadata__:
                if callable(meta):
                    table[name] = meta
    return table


REDUCERS: dict[str, Reducer] = reducers_of(ThreadState)
FIELDS: tuple[str, ...] = tuple(typing.get_type_hints(ThreadState))


def reducer_for(channel: str) -> Reducer | None:
    """The reducer that merges writes into ``channel``, or None when a write replaces the value."""
    return REDUCERS.get(channel)


def reducer_name(channel: str) -> str:
    """The reducer's name as the schema spells it (``add_messages``, ``merge_artifacts``) or ``replace``."""
    reducer = reducer_for(channel)
    if reducer is None:
        return "replace"
    return reducer.__name__.lstrip("_")  # LangGraph wraps add_messages in ``_add_messages``
