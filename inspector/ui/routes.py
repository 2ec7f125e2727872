"""The dashboard's pages, registered once by app.py, so pages can link to each other; and the one builder of
links to a checkpoint on the thread page.

``url_path`` names are part of the URL contract: ``thread``, ``diff``, ``health`` and ``retention``.
The thread list is the default page, served at the root URL (``/``, and ``/threads``); it is
registered under the name ``threads`` for links between pages.

The thread page's URL: ``?thread=<id>&checkpoint=<id>&ns=<namespace>&panel=<panel>&profile=<name>``;
``panel`` is a panel's slug (``panel_slug``: "Diff vs parent" -> ``diff-vs-parent``); ``profile`` the profile
picked in the page (``profile_choice``). Every finding that names a step or a checkpoint links there through
``checkpoint_params`` / ``checkpoint_link``; a link to the thread the page shows keeps its ``profile``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Callable, Sequence

import streamlit as st

from ..store.not_utf8 import quoted
from .inert import literal
from .names import key_text

_PAGES: dict[str, st.Page] = {}

PANEL_PARAM = "panel"
PROFILE_PARAM = "profile"
HISTORY_PARAM = "history"  # the thread list a reader came from (``timeline_view``)
GRAPH_MODE_PARAM = "graph"  # the graph's mode (``graph_figure``)
PRESENT_PARAM = "present"  # the presenter view (``presenter``)
# Parameters of the thread page that are not the location but travel with it: the open panel, the profile
# picked, the list a reader came from, the graph's mode, the presenter view, the list's search and order.
THREAD_CARRIED = (PANEL_PARAM, PROFILE_PARAM, HISTORY_PARAM, GRAPH_MODE_PARAM, PRESENT_PARAM, "q", "sort")


def register(pages: list[st.Page]) -> list[st.Page]:
    for page in pages:
        if page.visibility != "hidden":  # an alias (``/threads``) is reached by its URL, never linked to
            _PAGES[page.url_path or "threads"] = page
    return pages


def page(url_path: str) -> st.Page | str:
    """The registered page for ``url_path``."""
    return _PAGES[url_path]


def panel_slug(title: str) -> str:
    """A panel's name in the URL: its title lower-cased, words joined by ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


DEFAULT_PANEL = "State"  # the thread page's first panel (panels.THREAD_PANELS[0]): its URL names no panel


def checkpoint_params(thread_id: str, checkpoint_id: str | None = None, ns: str = "",
                      panel: str | None = None, step: int | None = None) -> dict[str, str]:
    """Query parameters of the thread page showing ``checkpoint_id`` (the newest when None) with the panel
    titled ``panel`` open (the first when None), named whole: the checkpoint's ``step`` (given, or read from
    the checkpoint id), and the panel unless it is the first. The page then has nothing to add to its URL,
    so opening the link costs one Back to undo and lands on that very step."""
    from ..history.location import url_id
    from ..store.model import checkpoint_step
    from .names import param

    params = {"thread": url_id(thread_id)}
    if checkpoint_id:
        params["checkpoint"] = url_id(checkpoint_id)
    if ns:
        params["ns"] = param(ns)  # masked where it holds a secret's shape; the thread page finds the stored one
    if checkpoint_id:
        step = checkpoint_step(checkpoint_id) if step is None else step
        if step is not None:
            params["step"] = str(step)
    if panel and panel_slug(panel) != panel_slug(DEFAULT_PANEL):
        params[PANEL_PARAM] = panel_slug(panel)
    return {**params, **carried_profile(thread_id)}


def carried_profile(thread_id: str) -> dict[str, str]:
    """``{"profile": name}`` when the page shows ``thread_id`` read with a profile picked in the page (its URL's
    ``profile``, a registered name), so a link to that thread keeps reading it so; else nothing."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    from ..history.location import url_id
    from ..profiles import ProfileError, profile_named

    if get_script_run_ctx(suppress_warning=True) is None:
        return {}
    named = st.query_params.get(PROFILE_PARAM)
    if not named or st.query_params.get("thread") != url_id(thread_id):
        return {}
    try:
        return {PROFILE_PARAM: profile_named(named).name}
    except ProfileError:
        return {}


def thread_params(store: Any, thread_id: str, panel: str | None = None) -> dict[str, str]:
    """``checkpoint_params`` for the checkpoint the thread page opens ``thread_id`` on (its newest), read from
    the thread's keys (cached with the page's own read); just the thread when they cannot be read."""
    from . import data

    try:
        history = data.thread_history(store, thread_id).history
    except Exception:  # noqa: BLE001 - a link still opens the thread, which says what went wrong
        return checkpoint_params(thread_id, panel=panel)
    if history.head is None:
        return checkpoint_params(thread_id, panel=panel)
    row = history.node(history.head).row
    return checkpoint_params(thread_id, row.checkpoint_id, row.checkpoint_ns, panel, row.step)


def checkpoint_href(thread_id: str, checkpoint_id: str | None = None, ns: str = "", panel: str | None = None) -> str:
    """A relative URL of that thread page view (for Markdown links and table link columns)."""
    from urllib.parse import urlencode

    return "thread?" + urlencode(checkpoint_params(thread_id, checkpoint_id, ns, panel))


def link(url_path: str, label: str, params: dict[str, str] | None = None, icon: str | None = None,
         help: str | None = None, key: str = "") -> None:
    """A link to another page carrying query parameters (no link when the page is not registered).

    ``label`` is shown as written (page link labels are Markdown; thread ids in them come from the data). On the page
    being shown (``opened``) it is a button that moves this page to ``params``, its URL included: a page link to the
    page already shown changes what is shown but leaves the browser's URL as it was, so a copied link or a reload
    would open the old view. ``key`` tells apart two such buttons with one label and one target.
    """
    if url_path not in _PAGES:
        return
    if here(url_path):
        digest = hashlib.sha256(repr((label, sorted((params or {}).items()))).encode("utf-8", "surrogatepass"))
        st.button(literal(label), type="tertiary", icon=icon, help=help, on_click=_show, args=(dict(params or {}),),
                  key=f"link-{key_text(key)}-{digest.hexdigest()[:16]}")
    else:
        st.page_link(_PAGES[url_path], label=literal(label), icon=icon, query_params=params or {}, help=help)


def checkpoint_link(label: str, thread_id: str, checkpoint_id: str | None = None, ns: str = "",
                    panel: str | None = None, icon: str | None = ":material/my_location:",
                    help: str | None = None, key: str = "") -> None:
    """A link to one checkpoint of a thread on the thread page, ``panel`` open."""
    link("thread", label, checkpoint_params(thread_id, checkpoint_id, ns, panel), icon=icon,
         help=help or "Open this checkpoint on the thread page", key=key)


def go(url_path: str, params: dict[str, str] | None = None) -> None:
    st.switch_page(_PAGES[url_path], query_params=params or {})


# --- widgets whose value lives in the URL -------------------------------------------------------------


def _synced(key: str) -> str:
    return f"_url_{key}"


def bind(key: str, param: str, default: Any, parse: Callable[[str], Any] = str) -> str | None:
    """Before drawing widget ``key`` (drawn without a default of its own): give it the value of query
    parameter ``param`` whenever the URL changed since the page last wrote it (a link, Back), so the URL
    and the widget never disagree. Returns a message naming a value of ``param`` that ``parse`` refused
    (``ValueError``); the widget then shows ``default``."""
    shown = st.query_params.get(param)
    if key in st.session_state and st.session_state.get(_synced(key), None) == shown:
        return None
    problem = None
    value = default
    if shown is not None:
        try:
            value = parse(shown)
        except ValueError as exc:
            problem = f"{param}={quoted(shown)} is not understood ({exc}); showing {default!r} instead."
    st.session_state[key] = value
    st.session_state[_synced(key)] = shown
    return problem


def bind_choice(key: str, param: str, default: str, choices: Sequence[str], what: str) -> str | None:
    """``bind`` for a widget choosing one of ``choices``, each named in the URL by its label in lower case;
    ``what`` names the choices in the message about a value that is none of them."""
    by_slug = {c.lower(): c for c in choices}

    def parse(slug: str) -> str:
        if slug not in by_slug:
            raise ValueError(f"the {what} are {', '.join(by_slug)}")
        return by_slug[slug]

    return bind(key, param, default, parse)


def keep(key: str, param: str, value: Any, default: Any) -> None:
    """After drawing widget ``key``: write its ``value`` to query parameter ``param`` (removed at ``default``)."""
    text = None if value in (None, "") or value == default else str(value)
    if st.query_params.get(param) != text:
        if text is None:
            st.query_params.pop(param, None)
        else:
            st.query_params[param] = text
    st.session_state[_synced(key)] = text


def opened(url_path: str) -> None:
    """Called by app.py with the page about to run: links to that same page become buttons (a page link to
    the page already shown does not move)."""
    st.session_state["_routes_page"] = url_path or "threads"


def here(url_path: str) -> bool:
    """Whether ``url_path`` is the page being shown (``opened``)."""
    return st.session_state.get("_routes_page") == (url_path or "threads")


def _show(params: dict[str, str]) -> None:
    st.query_params.from_dict(params)


def checkpoint_links(thread_id: str, checkpoint_ids: list[str], ns: str = "", panel: str | None = None,
                     lead: str | None = None, limit: int = 12, labels: list[str] | None = None,
                     key: str = "") -> None:
    """One row of links (wrapping), each opening one of ``checkpoint_ids`` on the thread page with ``panel``
    open; labelled by step (``step 7``) unless ``labels`` are given; past ``limit``, a count of the rest.
    ``key`` tells apart several rows on one page that may name the same checkpoint."""
    if not checkpoint_ids:
        return
    from ..store.model import checkpoint_step

    on_thread_page = here("thread")
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        if lead:
            st.caption(literal(lead))
        for i, checkpoint_id in enumerate(checkpoint_ids[:limit]):
            step = checkpoint_step(checkpoint_id)
            label = labels[i] if labels else (f"step {step}" if step is not None else checkpoint_id[:13])
            params = checkpoint_params(thread_id, checkpoint_id, ns, panel)
            tip = f"Open checkpoint {checkpoint_id} on the thread page"
            if on_thread_page:  # on the thread page already: move it to that checkpoint
                st.button(literal(label), type="tertiary", icon=":material/my_location:", help=tip, on_click=_show,
                          args=(params,), key=f"goto-{key}-{lead}-{panel}-{key_text(ns)}-{i}-{key_text(checkpoint_id)}")
            else:
                checkpoint_link(label, thread_id, checkpoint_id, ns, panel, help=tip)
        if len(checkpoint_ids) > limit:
            st.caption(f"and {len(checkpoint_ids) - limit} more")


def select_location(location: Any) -> None:
    """Show ``location`` (a ``history.location.Location``) on the thread page: write it to the URL (the page reads
    it back on the rerun) with the parameters that travel with it, a namespace holding a secret's shape as shown
    (``names.param``)."""
    from . import names

    carried = {k: st.query_params[k] for k in THREAD_CARRIED if st.query_params.get(k)}
    params = location.params()
    if "ns" in params:
        params["ns"] = names.param(location.ns)
    st.query_params.from_dict({**params, **carried})
