"""The state of one checkpoint, field by field.

Each field is drawn by its view from the ``views`` table it is handed
(``panels.field_views()`` on the thread page: the views the thread's profile names); fields without a view are shown
as JSON (never dropped). Each view runs guarded: if it raises, its field shows
an error box and the other fields still render. Decoding problems attached to a field are shown above it by this
module, so views need not handle them.
"""

from __future__ import annotations

from typing import Any, Mapping

import streamlit as st

from ..formatting import dumps
from ..history.attribution import Attribution
from ..state.fields import field_order, field_summary
from ..state.interrupts import pending_questions
from ..store import CheckpointState, Store
from . import audit_trail
from .field_views import FieldContext, FieldView, json_view
from .guard import guarded
from .inert import code_span, key_text, literal
from .values import show_tree, show_value

__all__ = ["FieldContext", "FieldView", "render_field", "render_state"]


def written_line(name: str, state: CheckpointState, written: Attribution | None) -> str:
    """``last written at step 7 by view_image_middleware`` (``· this step`` when the shown checkpoint wrote it)."""
    if written is None:
        return "not written on this checkpoint's line of history (set before it, or by the parent graph)"
    by = ", ".join(written.writers(name)) or written.what
    here = " · this step" if written.key == (state.checkpoint_ns, state.checkpoint_id) else ""
    at = f"at step {written.step}" if written.step is not None else "at a checkpoint with no step number"
    return f"last written {at} by {by}{here}"


def last_written(store: Store | None, state: CheckpointState) -> dict[str, Attribution]:
    """Field -> the attribution of the newest checkpoint at or before ``state`` that wrote it (the one
    attribution: write keys only, read back along the lineage until every field is found)."""
    if store is None:
        return {}
    from . import data  # the thread's history and write keys, cached per page session

    try:
        thread = data.thread_history(store, state.thread_id)
        return thread.last_writes(store, (state.checkpoint_ns, state.checkpoint_id), list(state.values))
    except Exception:  # noqa: BLE001 - a store that cannot list its writes still shows the state
        return {}


def render_field(name: str, value: Any, state: CheckpointState, store: Store | None = None,
                 views: Mapping[str, FieldView] | None = None, written: Attribution | None = None,
                 attributed: bool = False) -> None:
    st.markdown(f"**{code_span(name)}** · {literal(field_summary(name, value, state))}")
    if attributed:
        line = written_line(name, state, written)
        if written is not None and written.key != (state.checkpoint_ns, state.checkpoint_id):
            from .routes import checkpoint_link

            checkpoint_link(line, state.thread_id, written.key[1], written.key[0], icon=":material/edit_note:",
                            help="Open the checkpoint whose step wrote this field")
        else:
            st.caption(literal(line))
    for problem in state.problems_for(name):
        st.warning(literal(f"{name}: {problem.message}"), icon=":material/warning:")
    view = (views or {}).get(name, json_view)
    guarded(f"Field {name}", view, value, FieldContext(name, state, store))


def render_state(state: CheckpointState, store: Store | None = None, views: Mapping[str, FieldView] | None = None) -> None:
    """Every field of ``state`` (known fields first) drawn by its view in ``views`` (JSON without one), then
    internals, raw data and downloads on demand."""
    for problem in state.problems_for(None):
        st.warning(literal(problem.message), icon=":material/warning:")
    _pending(state)
    written = last_written(store, state)
    for name in field_order(state.values):
        with st.container(border=True, key=f"field-{name}"):
            render_field(name, state.values[name], state, store, views, written.get(name), attributed=store is not None)
    _extras(state)


def _pending(state: CheckpointState) -> None:
    for number, question in enumerate(pending_questions(state.writes)):
        with st.container(border=True, key=f"pending-question-{number}"):
            st.markdown(":material/help: **Waiting for the user's answer**")
            st.info(literal(question.question or "(the interrupt carries no question text)"))
            for option in question.options:
                st.markdown(f"- {literal(option)}")
            with st.expander("Interrupt value"):
                show_value(question.value, expanded=2)


def _extras(state: CheckpointState) -> None:
    """Internals, metadata, pending writes and the raw checkpoint: sent to the browser only when asked for,
    since a state can hold megabytes of base64."""
    if st.toggle("Show LangGraph's internal channels", key="show_internal"):
        show_tree(state.internal, expanded=1)
    if st.toggle("Show the metadata", key="show_metadata"):
        show_tree(state.metadata, expanded=2)
    if st.toggle(f"Show the pending writes ({len(state.writes)})", key="show_writes"):
        show_tree(state.writes, expanded=1)
    if st.toggle("Show the raw decoded checkpoint", key="show_raw"):
        show_tree({"header": state.header, "channel_values": {**state.values, **state.internal}}, expanded=1)
    st.download_button(
        "Download state as JSON",
        data=audit_trail.exported(lambda: dumps(state), state.thread_id, state.checkpoint_id, state.checkpoint_ns,
                                  what="state json"),  # serialized when clicked, not on every run
        file_name=f"{key_text(state.thread_id)}-{key_text(state.checkpoint_id)}.json",
        mime="application/json",
        icon=":material/download:",
        on_click="ignore",
    )
