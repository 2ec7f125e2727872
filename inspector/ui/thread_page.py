"""Thread: the checkpoint history of one thread and the state of the selected checkpoint.

URL contract: ``?thread=<id>&checkpoint=<id>&ns=<namespace>&step=<n>`` (page ``thread``).
The query parameters always name what is on screen; every control that selects
a checkpoint writes them. ``step`` alone (``?thread=<id>&step=12``) opens that
step on the newest branch; with a checkpoint id, the id decides. ``profile=<name>``
reads the thread with that profile (``profile_choice``: picked in the page, kept
by every move), for every panel, Play and Export. ``present=1`` shows the
presenter view (``presenter``) of the step; ``graph=expanded`` draws the graph
expanded (``graph_figure``).

The panels offered beside the history are ``panels.THREAD_PANELS``. Only the
chosen panel runs (the first, the state, until another is picked), so opening
a thread costs the visible page of its history and one decoded checkpoint,
whatever the history's length. Each panel runs guarded: an exception shows an
error in that panel only. Below the header, the page is one fragment (``_step``):
a move to another step reruns it alone, not the title, header and sidebar.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from .. import profiles
from ..history.lineage import History, Key
from ..history.location import Location, parse_location
from ..history.thread_history import ThreadHistory
from ..state.drift import SchemaDrift, drift_lines, thread_drift
from ..store import CheckpointRow, NotFound, Store, StoreError
from ..store.not_utf8 import quoted
from . import (
    audit_trail,
    branch_links,
    bundle_view,
    data,
    diff_view,
    follow,
    names,
    panels,
    play_view,
    presenter,
    profile_choice,
    routes,
    timeline_view,
)
from .guard import guarded
from .inert import literal

# Up to this many stored bytes, opening a thread reads every checkpoint's metadata (it sits behind the state
# in SQLite, so reading it costs about the thread's bytes); beyond, only the pages shown.
SMALL_HISTORY_BYTES = 16_000_000
PANEL_KEY = "thread_panel"
PROFILE_KEY = "thread_profile"
READ_ONLY_HELP = ("The inspector opens the store read-only: nothing on this page can change the thread, "
                  "its checkpoints or its files.")


select = routes.select_location  # the thread page owns its URL: its location and what travels with it


def _stored_ns(location: Location, history: History) -> Location:
    """``location`` with its namespace as the thread holds it (a URL names a masked one as shown)."""
    return names.stored_location(location, (k[0] for k in history.nodes))


def _back(message: str) -> None:
    st.error(literal(message), icon=":material/error:")
    routes.link("threads", "Back to the thread list", icon=":material/arrow_back:")


def _resolve(history: History, location: Location) -> Key | None:
    if not location.checkpoint and location.step is not None:
        head = next((k for k in history.ordered if k[0] == location.ns), None)
        path = history.path_through(head) if head is not None else []
        return next((k for k in path if history.node(k).row.step == location.step), None)
    if not location.checkpoint and location.ns:
        return next((k for k in history.ordered if k[0] == location.ns), None)
    if not location.checkpoint:
        return history.head
    return history.find(location.checkpoint, location.ns or None)


def render() -> None:
    asked = parse_location(st.query_params.to_dict())
    if st.query_params.get("step") and asked.step is None:
        st.warning(literal(f"step={quoted(st.query_params['step'])} in the link is not a step number (such as 12 or -1); "
                           "it is left out."), icon=":material/link_off:")
    location = play_view.moved_to(asked)
    if location != asked:
        select(location)
    if not location.thread:
        st.title("Thread")
        _back("No thread selected: open one from the thread list.")
        return
    store = data.opened_store()
    if store is None:
        return
    try:
        thread = data.thread_history(store, location.thread)
    except NotFound:
        st.title("Thread")
        _back(f"There is no thread {quoted(location.thread)} in this store.")
        return
    except StoreError as exc:
        _back(f"Reading thread {quoted(location.thread)} failed: {exc}")
        return
    location = _stored_ns(location, thread.history)
    with profiles.asking(store, thread.thread_id, profile_choice.bind(PROFILE_KEY)):
        if not presenter.active():
            _header(store, thread)
    st.fragment(_step)(store, thread.thread_id)


def _step(store: Store, thread_id: str) -> None:
    """Everything on the page that changes from step to step, as one fragment: Prev / Next, the slider's and the
    tree's clicks and the panels run it alone, so the title, the header and the sidebar are neither computed nor
    drawn again (a fragment's own run is guarded here: the page's guard does not run then)."""
    guarded("The thread page", _step_shown, store, thread_id)


def _step_shown(store: Store, thread_id: str) -> None:
    """The fragment's content, at the location the URL names (a step moved to writes it there, as on the page)."""
    asked = play_view.moved_to(parse_location(st.query_params.to_dict()))
    try:
        thread = data.thread_history(store, thread_id)
    except (NotFound, StoreError) as exc:
        _back(f"Reading thread {quoted(thread_id)} failed: {exc}")
        return
    location = _stored_ns(dataclasses.replace(asked, thread=thread_id), thread.history)
    with profiles.asking(store, thread_id, profile_choice.named(PROFILE_KEY)):
        _thread(store, thread, location)


def _thread(store: Store, thread: ThreadHistory, location: Location) -> None:
    """The page of one thread below its header, read with the profile the page names for it (if any); in the
    presenter view, only its controls and the selected step's frame."""
    presenting = presenter.active()
    history = thread.history
    key = _resolve(history, location)
    if key is None:
        ns = names.shown(location.ns)
        st.warning(literal(f"Checkpoint {quoted(location.checkpoint)} (namespace {quoted(ns or 'root')}) is not "
                           "in this thread." if location.checkpoint else
                           f"Step {location.step} is not on the newest branch of this thread."
                           if location.step is not None else
                           f"Namespace {quoted(ns)} has no checkpoint in this thread."))
        routes.link("thread", "Show the newest checkpoint", routes.thread_params(store, location.thread),
                    icon=":material/history:")
        routes.link("threads", "Back to the thread list", icon=":material/arrow_back:")
        return
    shown = timeline_view.location_of(history, key)
    if shown != location:
        select(shown)  # the URL names exactly what is on screen, so a copied link keeps showing it
    audit_trail.record_view("thread_view", location.thread)
    audit_trail.record_view("checkpoint_view", location.thread, key[1], key[0])
    # one read for the rows on screen: the selected checkpoint's page, and the thread's first checkpoint,
    # whose metadata names the thread a branch came from (a small history is read whole, kinds and all)
    page = history.page(history.page_of(key, timeline_view.PAGE_SIZE), timeline_view.PAGE_SIZE)
    if sum(node.row.stored_bytes for node in history.nodes.values()) <= SMALL_HISTORY_BYTES:
        page = history.ordered
    thread.complete(store, [*page, *([thread.oldest_root] if thread.oldest_root else [])])
    rows = [node.row for node in history.nodes.values()]
    with profiles.reading(store, thread.thread_id, rows=rows,  # the rows read above: nothing more
                          cache=data.analysis_cache(store)) as chosen:
        if presenting:
            presenter.render(store, thread, key, select, made_for=lambda keys: thread.attributions(store, keys))
            return
        profile_choice.picker(store, thread.thread_id, chosen, PROFILE_KEY, rows)
        guarded("Branch links", branch_links.render, store, thread.thread_id, history, memo=thread.memo)
        _body(store, thread, key)


def _header(store: Store, thread: ThreadHistory) -> None:
    """The title, Follow (which reads newer checkpoints before the history is laid out), Refresh and Export."""
    st.title(literal(thread.thread_id))
    # one row that wraps on a narrow window: nothing is cut to "R…"
    with st.container(horizontal=True, gap="small", vertical_alignment="center", key="thread_header"):
        st.markdown(":green-badge[:material/lock: Read-only]", help=READ_ONLY_HELP)
        routes.link("threads", "All threads", {k: st.query_params[k] for k in ("q", "sort") if st.query_params.get(k)},
                    icon=":material/arrow_back:")
        st.toggle("Follow", key=follow.TOGGLE_KEY, help=follow.HELP)
        if st.button("Refresh", icon=":material/refresh:", help="Re-read this thread's history from the store"):
            data.refresh_thread(store, thread.thread_id)
            st.rerun()
        bundle_view.export_button(store, thread.thread_id)
        presenter.enter_button()
    follow.poll(store, thread, select)


def _history(store: Store, thread: ThreadHistory, key: Key) -> None:
    history = thread.history
    note = getattr(store, "history_note", None)  # a store that keeps no history (a shallow saver's) says so here
    if note:
        st.info(literal(note), icon=":material/history:")
    namespaces = sorted({ns for ns, _ in history.ordered})
    replays = diff_view.thread_replay(store, thread.thread_id, namespaces, len(history))
    if replays:
        diff_view.render_verdict(diff_view.thread_verdict(replays), compact=True,
                                 schema=diff_view.replay_schema(store, thread.thread_id, list(replays)))
    timeline_view.render(history, key, select, diff_view.replay_marks(replays),
                         complete=lambda keys: thread.complete(store, keys),
                         marks_for=lambda keys: diff_view.cached_marks(
                             store, thread.thread_id, [history.node(k).row for k in keys]),
                         made_for=lambda keys: thread.attributions(store, keys), colours=thread.node_colours(),
                         memo=thread.memo)


def _drift(store: Store, thread: ThreadHistory) -> None:
    """Channels the thread holds that the schema lacks, and schema fields it never wrote (looked for once while
    the history stays as it was, per profile: every checkpoint's channels, and the newest state)."""
    history = thread.history

    def found() -> SchemaDrift:
        head = history.node(history.head).row if history.head else None
        states = [data.state(store, thread.thread_id, head.checkpoint_id, head.checkpoint_ns)] if head else []
        return thread_drift([n.row for n in history.nodes.values()], states)

    drift = thread.memo(("drift", profiles.in_force().name), found)
    lines = drift_lines(drift)
    if drift.unknown_channels:
        st.info(literal(lines[0]), icon=":material/schema:")
    if drift.unwritten_fields:
        st.caption(literal(lines[-1]))


def _panel() -> tuple[str, panels.Panel]:
    """The panel picked beside the history (the first one until another is picked)."""
    offered = panels.THREAD_PANELS
    titles = [title for title, _ in offered]
    by_slug = {routes.panel_slug(t): t for t in titles}

    def parse(slug: str) -> str:
        if slug not in by_slug:
            raise ValueError(f"the panels are {', '.join(by_slug)}")
        return by_slug[slug]

    problem = routes.bind(PANEL_KEY, routes.PANEL_PARAM, titles[0], parse)
    if problem:
        st.warning(literal(problem), icon=":material/link_off:")
    chosen = st.segmented_control("Panel", titles, key=PANEL_KEY, label_visibility="collapsed") or titles[0]
    routes.keep(PANEL_KEY, routes.PANEL_PARAM, routes.panel_slug(chosen), routes.panel_slug(titles[0]))
    return next(((t, p) for t, p in offered if t == chosen), offered[0])


def _body(store: Store, thread: ThreadHistory, key: Key) -> None:
    history = thread.history
    row = history.node(key).row
    guarded("Navigator", timeline_view.navigator, history, key, select,
            made_for=lambda keys: thread.attributions(store, keys), memo=thread.memo)
    if play_view.playing(thread.thread_id):
        play_view.stage(store, thread, key, select, play_view.speed())
        return
    left, right = st.columns([2, 3], gap="medium")
    with right:  # first: the state reaches the browser before the history's charts
        guarded("The selected checkpoint", _selected, store, thread.thread_id, row)
    with left:
        guarded("History", _history, store, thread, key)
        guarded("Schema drift", _drift, store, thread)
    moved = timeline_view.stepped()
    if moved:  # stepping through the branch: the step further on in that direction is read while this one shows
        path = play_view.line(history, key)
        index = path.index(key) + moved
        play_view.read_steps(store, thread, path[index:index + 1] if 0 <= index < len(path) else [],
                             timeline_view.PAGE_SIZE, panels.conversation_fields())


def _selected(store: Store, thread_id: str, row: CheckpointRow) -> None:
    with st.container(key="thread_panel_tabs"):
        title, panel = _panel()
    try:
        state = data.state(store, thread_id, row.checkpoint_id, row.checkpoint_ns)
    except Exception as exc:  # noqa: BLE001 - the history beside it must still render
        st.error(literal(f"Cannot read checkpoint {row.checkpoint_id}: {data.redactor().text(str(exc))}"),
                 icon=":material/error:")
        return
    guarded(title, panel, store, thread_id, row, state)
