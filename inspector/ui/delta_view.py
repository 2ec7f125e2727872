"""The Size panel's delta views: what the thread would store with ``messages`` as LangGraph's ``DeltaChannel``,
at several snapshot frequencies, and how many writes a read would replay at most; and, for a thread that has
delta channels, where each one's value comes from at every checkpoint, with the chains' lints.

Each is computed when asked (a button): the what-if reads the thread's channel sizes and writes once, the
chains its states once.
"""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from ..formatting import human_bytes
from ..sizes.delta_chains import delta_chains
from ..sizes.delta_what_if import DEFAULT_FREQUENCIES, delta_what_if
from ..store import StoreError
from .inert import literal
from .names import key_text
from .tables import frame_of, in_units

# Each view's button: its label, what pressing it reads, and what is said when the store cannot answer.
_WHAT_IF = ("Compute", "Reads this thread's channel sizes and writes once; nothing is decoded beyond its writes.",
            "The delta what-if is not available")
_CHAINS = ("Read the chains", "Reads this thread's states once, decoding only its delta channels.",
           "The delta chains are not available")



def render_delta_what_if(store, thread_id: str) -> None:

    with st.expander("What delta mode would store (DeltaChannel for messages)", expanded=False):
        report = _when_asked(_WHAT_IF, f"delta_what_if_{key_text(thread_id)}",
                             lambda: delta_what_if(store, thread_id, DEFAULT_FREQUENCIES))
        if report is None:
            return
        st.caption(f"Stored now: {human_bytes(report.stored_bytes)} ({report.mode} mode).")
        options = frame_of([{"snapshot every": o.frequency, "would store": o.stored_bytes,
                                 "saves": o.saved_bytes, "saves %": round(100 * o.saved_share, 1),
                                 "snapshots": o.snapshots, "max writes a read replays": o.max_replayed_writes}
                                for o in report.options])
        frame, units = in_units(options, "would store", "saves")
        st.dataframe(frame, hide_index=True, width="stretch", column_config=units)
        st.caption(literal(report.basis))


def render_delta_chains(store, thread_id: str, ns: str = "") -> None:
    """Where each delta channel's value comes from at every checkpoint (snapshot, full value, seed plus replayed
    writes, or cannot be rebuilt) and the chains' lints; computed when asked."""
    with st.expander("Delta channels: where each value comes from", expanded=False):
        report = _when_asked(_CHAINS, f"delta_chains_{key_text(thread_id)}", lambda: delta_chains(store, thread_id, ns))
        if report is None:
            return
        if not report.rows:
            st.caption("This thread has no delta channel (LangGraph's DeltaChannel): every field stores its whole value.")
            return
        for lint in report.lints:
            st.warning(literal(lint.message), icon=":material/link_off:")
        st.caption(literal("Snapshot frequency (observed, or LangGraph's default of 100): " + ", ".join(
            f"{name} {report.frequencies[name]}" for name in report.channels)))
        st.dataframe(frame_of([{"step": r.step, "field": r.channel, "form": r.form, "replayed updates": r.replayed,
                                "where the value comes from": r.source, "checkpoint": r.checkpoint_id}
                               for r in reversed(report.rows)]), hide_index=True, width="stretch")


def _when_asked(button: tuple[str, str, str], key: str, compute: Callable[[], Any]) -> Any:
    """``compute()`` once its button (``button``: its label, what it costs, what is said when the store cannot
    answer) is pressed; until then the button and what it costs. None while not asked, or when the store cannot
    answer (said on the page)."""
    label, cost, unavailable = button
    if not st.button(label, key=key):
        st.caption(cost)
        return None
    try:
        return compute()
    except StoreError as exc:
        st.info(f"{unavailable}: {literal(exc)}")
        return None
