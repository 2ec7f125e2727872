"""The Size panel's delta what-if: what the thread would store with ``messages`` as LangGraph's
``DeltaChannel``, at several snapshot frequencies, and how many writes a read would replay at most.

Computed when asked (a button): it reads the thread's channel sizes and its writes once.
"""

from __future__ import annotations

import streamlit as st

from ..formatting import human_bytes
from ..sizes.delta_what_if import DEFAULT_FREQUENCIES, delta_what_if
from ..store import StoreError
from .inert import literal
from .names import key_text
from .tables import frame_of, in_units


def render_delta_what_if(store, thread_id: str) -> None:

    with st.expander("What delta mode would store (DeltaChannel for messages)", expanded=False):
        if not st.button("Compute", key=f"delta_what_if_{key_text(thread_id)}"):
            st.caption("Reads this thread's channel sizes and writes once; nothing is decoded beyond its writes.")
            return
        try:
            report = delta_what_if(store, thread_id, DEFAULT_FREQUENCIES)
        except StoreError as exc:
            st.info(f"The delta what-if is not available: {literal(exc)}")
            return
        st.caption(f"Stored now: {human_bytes(report.stored_bytes)} ({report.mode} mode).")
        options = frame_of([{"snapshot every": o.frequency, "would store": o.stored_bytes,
                                 "saves": o.saved_bytes, "saves %": round(100 * o.saved_share, 1),
                                 "snapshots": o.snapshots, "max writes a read replays": o.max_replayed_writes}
                                for o in report.options])
        frame, units = in_units(options, "would store", "saves")
        st.dataframe(frame, hide_index=True, width="stretch", column_config=units)
        st.caption(literal(report.basis))
