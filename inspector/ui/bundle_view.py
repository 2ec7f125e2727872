"""The thread page's "Export thread" button: the thread as a support bundle, and what the bundle holds.

The button opens a dialog that builds the bundle and says, from its manifest
(``inspector.bundle.summary``), what it holds: the checkpoints and writes, the files
included, what was left out and why, and what was masked; the download hands out that
same zip. The thread is read with the profile the page reads it with (which files it
names follow from it). The bundle is always masked (the reveal toggle shows one checkpoint, never a
whole thread's export), and each export writes an ``export`` line to the audit trail
when the file is downloaded.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import streamlit as st

from .. import profiles
from ..formatting import human_bytes
from ..store import Store
from . import audit_trail, connection, gate
from .inert import literal
from .names import key_text
from .tables import UNIT_HELP, in_units, table

HELP = ("A zip with this thread's checkpoints (every namespace, writes included, secrets masked inside the stored "
        "values), the files its state names and a manifest. Opens a summary of what it holds before the download. "
        "Open it elsewhere with --db FILE.zip or the sidebar's store switch.")


def build_bundle(store: Store, thread_id: str, created_by: str, profile: str | None = None) -> tuple[bytes, dict[str, Any]]:
    """The masked bundle of ``thread_id`` read with ``profile`` (None: as it is read anyway): the bytes of its
    zip, and its manifest."""
    from ..bundle import write_bundle  # LangGraph's SqliteSaver: loaded when a bundle is made, not with the page

    config = connection.settings()
    with tempfile.TemporaryDirectory(prefix="inspector-export-") as tmp, profiles.asking(store, thread_id, profile):
        path = Path(tmp) / "bundle.zip"
        manifest = write_bundle(store, thread_id, path, data_dir=config.data_dir, created_by=created_by,
                                settings=config)
        return path.read_bytes(), manifest


def show_summary(manifest: dict[str, Any]) -> None:
    """What a bundle holds, from its manifest: four lines, then the files and what was left out, as tables."""
    from ..bundle.summary import summarize

    summary = summarize(manifest)
    st.markdown("**The bundle holds**")
    st.markdown("\n".join(f"- {literal(line)}" for line in summary.lines()))
    if summary.files:
        frame, config = in_units(table([{"file": f["path"], "bytes": f["bytes"], "named by": f["named_by"],
                                         "masked": f["masked"]} for f in summary.files]), "bytes", help=UNIT_HELP)
        st.dataframe(frame, column_config=config, hide_index=True)
    if summary.left_out:
        st.markdown("**Left out**")
        st.dataframe(table([{"what": i["what"], "count": i["count"], "why": i["why"], "reason": i["reason"]}
                            for i in summary.left_out]), hide_index=True)


@st.dialog("Export thread", width="large")
def _export(store: Store, thread_id: str, who: str, profile: str | None) -> None:
    with st.spinner("Building the bundle: reading every checkpoint and the files the state names…"):
        payload, manifest = build_bundle(store, thread_id, who, profile)
    with st.container(key="bundle-summary"):
        show_summary(manifest)
    produce = audit_trail.exported(lambda: payload, thread_id, what="support bundle", masked=True)
    st.download_button(f"Download the bundle ({human_bytes(len(payload))})", data=produce,
                       file_name=f"{key_text(thread_id)}-bundle.zip", mime="application/zip", icon=":material/download:",
                       on_click="ignore", type="primary", key="bundle-download")


def export_button(store: Store, thread_id: str) -> None:
    if store.kind == "saver":
        st.button("Export thread", icon=":material/archive:", disabled=True,
                  help="A saver read through its API cannot hand out its rows as stored, so it cannot be exported.")
        return
    if st.button("Export thread", icon=":material/archive:", help=HELP, key="export-thread"):
        _export(store, thread_id, gate.current_user(), profiles.asked(store, thread_id))
