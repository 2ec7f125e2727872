"""The dashboard's long-lived objects kept out of Python's garbage collections.

A full collection walks every object the process holds: the modules of Streamlit, LangGraph and the inspector
make most of them and are never garbage. Streamlit's own collection after each run (``runner.postScriptGC``) is
off in the dashboard's ``.streamlit/config.toml`` (the states a step decodes made it 20-70 ms of every step);
Python still collects every generation now and then as memory is allocated. ``freeze_once`` imports the thread
list and the thread page and moves what the process holds then into the permanent generation (``gc.freeze``),
before any store is read: such a collection, and Streamlit's where its setting is left on, then walks what the
runs made, not the whole process."""

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
