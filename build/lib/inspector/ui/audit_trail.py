"""The dashboard's side of the audit trail (``inspector.safety.audit``): who, which store, once per view.

``record_view`` writes a line when what is on screen changes (another thread,
checkpoint or pair of checkpoints), not on every rerun of the same page; coming
back to a page counts as a new view. ``record`` writes one line now (a reveal);
``exported`` wraps a download button's data so the export is recorded when the
file is produced. Without ``audit_log`` all three do nothing. When the log
cannot be written the page stops with a message: nothing is shown unrecorded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from ..safety.audit import AuditError, AuditTrail, Scalar
from . import connection, gate
from .inert import literal

T = TypeVar("T")
_LAST_VIEWS = "audit_last_views"
_LAST_PAGE = "audit_last_page"


def trail() -> AuditTrail:
    """The trail for this session: the settings' ``audit_log``, the viewer and the open store."""
    try:
        path = connection.settings().audit_log
    except ValueError:
        path = None  # the gate has already stopped the page on unreadable settings
    return AuditTrail(path, gate.current_user(), connection.current_url())


def record(action: str, thread: str | None = None, checkpoint: str | None = None, ns: str | None = None,
           **detail: Scalar) -> None:
    """Write one line now; a log that cannot be written stops the page."""
    try:
        trail().record(action, thread, checkpoint, ns, **detail)
    except AuditError as exc:
        st.error(f"{literal(exc)}. Nothing is shown until the audit log can be written.", icon=":material/error:")
        st.stop()


def record_view(action: str, thread: str, checkpoint: str | None = None, ns: str | None = None,
                **detail: Scalar) -> None:
    """Write a line when this view differs from the last one of the same kind on this page visit."""
    key = repr((thread, checkpoint, ns, sorted(detail.items())))
    last = st.session_state.setdefault(_LAST_VIEWS, {})
    if last.get(action) != key:
        record(action, thread, checkpoint, ns, **detail)
        last[action] = key


def page_opened(url_path: str) -> None:
    """Called by app.py for the page about to run: a new page visit starts new views."""
    if st.session_state.get(_LAST_PAGE) != url_path:
        st.session_state[_LAST_PAGE] = url_path
        st.session_state[_LAST_VIEWS] = {}


def exported(data: Callable[[], T], thread: str | None = None, checkpoint: str | None = None, ns: str | None = None,
             **detail: Scalar) -> Callable[[], T]:
    """``data`` for ``st.download_button``: records an ``export`` line when the file is produced."""
    return trail().exported(data, thread, checkpoint, ns, **detail)
