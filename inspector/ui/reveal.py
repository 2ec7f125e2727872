"""Reveal: the selected checkpoint's secrets unmasked, on request, only where the operator allows it.

With ``allow_reveal`` off (the default) there is no control at all and every
value stays masked. With it on, the state panel offers a "Reveal secrets"
toggle for the checkpoint on screen, and the Threads page a "Search unmasked values"
toggle (a search otherwise matches only what the views show); each switch-on writes a
``reveal`` line to the audit trail (ids only, never a value or a search text).
"""

from __future__ import annotations

import streamlit as st

from ..store import CheckpointState, Store
from . import audit_trail, connection, data
from .names import key_text


def _switched(state: CheckpointState, key: str) -> None:
    if st.session_state.get(key):
        audit_trail.record("reveal", state.thread_id, state.checkpoint_id, state.checkpoint_ns)


def shown_state(store: Store | None, state: CheckpointState) -> CheckpointState:
    """``state`` (masked), or its raw twin when the operator allows reveal and the user asked for it."""
    if store is None or not connection.settings().allow_reveal:
        return state
    key = f"reveal-{key_text(state.checkpoint_ns, state.checkpoint_id)}"
    if not st.toggle("Reveal secrets", key=key, on_change=_switched, args=(state, key),
                     help="Show this checkpoint's values unmasked (allowed by the operator's allow_reveal setting)"):
        return state
    st.warning("Secrets are shown unmasked for this checkpoint, in the view and in its download.",
               icon=":material/visibility:")
    return data.raw_state(store, state.thread_id, state.checkpoint_id, state.checkpoint_ns)


def _search_switched(key: str) -> None:
    if st.session_state.get(key):
        audit_trail.record("reveal", what="thread search")


def search_unmasked() -> bool:
    """Whether the thread search matches stored values unmasked: only where the operator allows reveal and
    the user asked for it (without it a search never matches a masked secret)."""
    if not connection.settings().allow_reveal:
        return False
    key = "reveal-thread-search"
    return st.toggle("Search unmasked values", key=key, on_change=_search_switched, args=(key,),
                     help="Match the search against secrets as stored, not as masked "
                          "(allowed by the operator's allow_reveal setting)")
