"""Which store is open: resolved once per session, shown (and switchable) in the sidebar; and which
state schema threads are read in, chosen by the operator only (it imports code)."""

from __future__ import annotations

import sys

import streamlit as st

from .. import schema as schemas
from ..profiles import ProfileError, name_profile
from ..settings import Settings, load_settings, store_options
from ..store import Store, StoreError, display_url, is_saver_spec, open_store
from ..store.not_utf8 import quoted
from ..store_url import resolve_db_url
from .inert import code_span, literal

_URL_KEY = "inspector_store_url"


@st.cache_resource(show_spinner=False)
def settings() -> Settings:
    """The settings, read once per process (``settings.clear()`` reads them again): the only way the pages
    read them. Raises ValueError while they are invalid; the gate then stops every page before its body runs."""
    return load_settings()


def _close(store: Store) -> None:
    store.close()


@st.cache_resource(ttl=3600, max_entries=8, show_spinner="Opening the store…", on_release=_close)
def _open(url: str) -> Store:
    return open_store(url, **store_options(settings()))


@st.cache_resource(show_spinner="Loading the state schema…")
def _schema(spec: str) -> schemas.Schema:
    return schemas.load_schema(spec)


def use_schema(cli_schema: str | None, cli_profile: str | None = None) -> None:
    """Activate the operator's schema (``--schema``, then settings / ``INSPECTOR_SCHEMA``), loaded once per
    process; never settable from the page. If it cannot be loaded, say so and read each thread with its
    profile's reducers. The operator's profile (``--profile``, setting ``profile``) is named the same way."""
    try:
        name_profile(cli_profile or settings().profile)
    except ProfileError as exc:
        name_profile(None)
        st.sidebar.error(f"{literal(exc)}. Each thread is read with the profile its data shows.",
                         icon=":material/error:")
    spec = cli_schema or settings().schema
    if not spec:
        if "inspector.schema.reading" in sys.modules:  # until a schema is read, none is active: nothing to undo
            schemas.activate(None)  # (reading one loads LangGraph's graph package: seconds on a first page)
        return
    try:
        schemas.activate(_schema(spec))
    except schemas.SchemaError as exc:
        schemas.activate(None)
        st.sidebar.error(f"{literal(exc)}. Reading each thread with its profile's reducers instead.",
                         icon=":material/error:")


def start(cli_db: str | None) -> None:
    """Pick this session's store URL: the `--db` flag, settings, or the demo database."""
    if _URL_KEY not in st.session_state:
        try:
            st.session_state[_URL_KEY] = resolve_db_url(cli_db, settings())
        except (StoreError, OSError, ValueError) as exc:
            st.session_state[_URL_KEY] = ""
            st.session_state["inspector_start_error"] = str(exc)
    _sidebar()


def current_url() -> str:
    return st.session_state.get(_URL_KEY, "")


def store() -> Store | None:
    """The open store, or None after showing why it could not be opened."""
    url = current_url()
    if not url:
        st.error(literal(st.session_state.get("inspector_start_error", "No store is configured.")))
        return None
    try:
        opened = _open(url)
    except StoreError as exc:
        st.error(f"Cannot open the store: {literal(exc)}")
        return None
    if getattr(opened, "warning", None):
        st.sidebar.warning(literal(opened.warning), icon=":material/warning:")
    return opened


def _switch() -> None:
    url = st.session_state.get("inspector_switch_url", "").strip()
    if is_saver_spec(url):
        # Opening a saver factory imports and runs code: only the operator may choose one.
        st.session_state["inspector_switch_refused"] = (
            f"{quoted(url)} names a saver factory; those run code, so only the operator can open one "
            "(--db, INSPECTOR_DB or settings)."
        )
        return
    st.session_state.pop("inspector_switch_refused", None)
    if url:
        st.session_state[_URL_KEY] = url
        st.query_params.clear()


def _sidebar() -> None:
    with st.sidebar:
        url = current_url()
        st.caption("Store (through the saver API)" if is_saver_spec(url) else "Store (read-only)")
        # inline code, not st.code: a code block makes every page load the syntax highlighter's megabytes
        st.markdown(code_span(display_url(url) or "none"))
        named = schemas.operator_schema() if "inspector.schema.reading" in sys.modules else None  # none read yet
        st.caption(f"Schema: {literal(named.name)}" if named else "Schema: each thread's profile")
        if refused := st.session_state.get("inspector_switch_refused"):
            st.error(literal(refused), icon=":material/block:")
        if not settings().lock_store:
            with st.popover("Switch store", width="stretch"):
                st.text_input("Store URL", key="inspector_switch_url", placeholder="sqlite:////path/to/checkpoints.db",
                              help="sqlite:////file.db, postgresql://user:pass@host/db or deerflow:///path/to/deerflow")
                st.button("Open", on_click=_switch)
