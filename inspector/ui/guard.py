"""Panels that fail alone: an exception inside one becomes an error box in that panel."""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from .inert import literal


def guarded(title: str, render: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Run ``render``; show a failure as ``st.error`` here so the rest of the page still renders."""
    try:
        render(*args, **kwargs)
    except ScriptControlException:
        raise  # st.rerun / st.stop / st.switch_page are control flow, not failures
    except Exception as exc:  # noqa: BLE001 - a panel must never take the page down
        st.error(literal(f"{title} could not be shown: {type(exc).__name__}: {exc}"), icon=":material/error:")
