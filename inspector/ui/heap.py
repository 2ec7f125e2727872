"""The dashboard's long-lived objects kept out of Python's garbage collections.

Streamlit collects every generation after each run of the page (``runner.postScriptGC``), and a full collection
walks every object the process holds: the modules of Streamlit, LangGraph and the inspector make most of them
and are never garbage. ``freeze_once`` imports the thread list and the thread page and moves what the process holds then into the
permanent generation (``gc.freeze``), before any store is read: a click then waits for a collection of what the
runs made, not of the whole process.
"""

from __future__ import annotations

import gc
import importlib

PAGES = ("threads_page", "thread_page")  # the pages most opened; the others load charts a thread page never needs
_frozen = False


def freeze_once() -> bool:
    """Import the thread list and the thread page and freeze the objects held now, once per process; True the time it froze."""
    global _frozen
    if _frozen:
        return False
    _frozen = True
    for page in PAGES:
        importlib.import_module(f"{__package__}.{page}")
    gc.collect()
    gc.freeze()
    return True
