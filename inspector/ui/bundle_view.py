"""The thread page's "Export thread" button: the thread as a support bundle, built when clicked."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from ..bundle import Masker, RedactionUnavailable, write_bundle
from ..store import Store
from . import data

HELP = ("A zip with this thread's checkpoints (every namespace, writes included, secrets masked), the files its state "
        "names and a manifest. Open it elsewhere with --db FILE.zip or the sidebar's store switch.")


def viewer() -> str:
    """Who is looking, for the bundle's manifest: the logged-in user, else the dashboard itself."""
    try:
        email = st.user.get("email") if st.user.get("is_logged_in") else None
    except Exception:  # noqa: BLE001 - no auth configured
        email = None
    return str(email) if email else "dashboard (no login)"


def bundle_bytes(store: Store, thread_id: str, created_by: str) -> bytes:
    settings = data.settings_or_defaults()
    with tempfile.TemporaryDirectory(prefix="inspector-export-") as tmp:
        path = Path(tmp) / "bundle.zip"
        write_bundle(store, thread_id, path, data_dir=settings.data_dir, created_by=created_by, settings=settings)
        return path.read_bytes()


def export_button(store: Store, thread_id: str) -> None:
    if store.kind == "saver":
        st.button("Export thread", icon=":material/archive:", disabled=True,
                  help="A saver read through its API cannot hand out its rows as stored, so it cannot be exported.")
        return
    try:
        Masker(True, data.settings_or_defaults())
    except RedactionUnavailable as exc:
        st.button("Export thread", icon=":material/archive:", disabled=True, help=str(exc))
        return
    who = viewer()
    st.download_button("Export thread", data=lambda: bundle_bytes(store, thread_id, who),
                       file_name=f"{thread_id}-bundle.zip", mime="application/zip", icon=":material/archive:",
                       on_click="ignore", help=HELP)
