"""The thread page's "Export thread" button: the thread as a support bundle, built when clicked.

The bundle is always masked (the reveal toggle shows one checkpoint, never a
whole thread's export), and each export writes an ``export`` line to the audit
trail when the file is produced.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from ..bundle import write_bundle
from ..store import Store
from . import audit_trail, connection, gate

HELP = ("A zip with this thread's checkpoints (every namespace, writes included, secrets masked inside the stored "
        "values), the files its state names and a manifest. Open it elsewhere with --db FILE.zip or the sidebar's "
        "store switch.")


def bundle_bytes(store: Store, thread_id: str, created_by: str) -> bytes:
    """The masked bundle of ``thread_id``, as the bytes of its zip."""
    config = connection.settings()
    with tempfile.TemporaryDirectory(prefix="inspector-export-") as tmp:
        path = Path(tmp) / "bundle.zip"
        write_bundle(store, thread_id, path, data_dir=config.data_dir, created_by=created_by, settings=config)
        return path.read_bytes()


def export_button(store: Store, thread_id: str) -> None:
    if store.kind == "saver":
        st.button("Export thread", icon=":material/archive:", disabled=True,
                  help="A saver read through its API cannot hand out its rows as stored, so it cannot be exported.")
        return
    who = gate.current_user()
    produce = audit_trail.exported(lambda: bundle_bytes(store, thread_id, who), thread_id, what="support bundle",
                                   masked=True)
    st.download_button("Export thread", data=produce, file_name=f"{thread_id}-bundle.zip", mime="application/zip",
                       icon=":material/archive:", on_click="ignore", help=HELP)
