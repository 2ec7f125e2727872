"""What is known of the default schema (DeerFlow's ThreadState) without loading it: its name and its source.

Loading it means reading it the way LangGraph does (``inspector.schema``), which imports
LangGraph's graph package; work that only needs to name the default schema, or to know
whether its code changed, reads these instead.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_SCHEMA_NAME = "DeerFlow ThreadState"
# The files the default schema is made of: its reducers, and how a schema is read.
DEFAULT_SCHEMA_SOURCES = (Path(__file__).with_name("thread_state.py"), Path(__file__).with_name("schema.py"))
