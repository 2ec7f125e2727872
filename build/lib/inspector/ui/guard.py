"""Panels that fail alone: an exception inside one becomes an error box in that panel."""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from .data import redactor
from .inert import literal


def guarded(title: str, render: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Run ``render``; show a failure as ``st.error`` here so the rest of the page still renders."""
    try:
        render(*args, **kwargs)
    except ScriptControlException:
        raise  # st.rerun / st.stop / st.switch_page are control flow, not failures
    except Exception as exc:  # noqa: BLE001 - a panel must never take the page down
        # an exception's text can quote a value: it is masked as the value would be
        st.error(literal(f"{title} could not be shown: {type(exc).__name__}: {redactor().text(str(exc))}"),
                 icon=":material/error:")
