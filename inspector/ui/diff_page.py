"""Diff: any two checkpoints of a thread, or of two threads, compared field by field, in reducer terms.

Deep links: ``/diff?thread=ID&from=CHECKPOINT&to=CHECKPOINT&ns=NAMESPACE``; across threads
``/diff?thread=ID&against=OTHER&from=CHECKPOINT_OF_ID&to=CHECKPOINT_OF_OTHER`` (root graphs). ``profile=NAME``
reads the thread (across threads, both) with that profile, as on the thread page (``profile_choice``).
"""

from __future__ import annotations

import streamlit as st

from .. import profiles
from ..history.checkpoint_kinds import step_label
from ..history.location import id_from_url, url_id
from ..store import CheckpointRow, NotFound, Store, StoreError
from ..store.not_utf8 import quoted
from . import audit_trail, data, profile_choice, routes
from .diff_view import compare, compare_threads, render_diff, render_replay_table
from .inert import key_text, literal, option_text
from .names import param as ns_param
from .names import shown as name_shown
from .names import stored as stored_ns

THREAD_KEY = "diff_thread"
PROFILE_KEY = "diff_profile"
SUGGESTED_THREADS = 200  # the newest threads offered in the picker; any other id can be typed
CLEARED_WITH_THE_THREAD = ("from", "to", "ns", "against", "replay", routes.PROFILE_PARAM)


NAMED_STEPS = 5_000  # up to this many checkpoints of a namespace are named by what made them (as the slider does)
LABEL_CHARS = 72


def _label(row: CheckpointRow, names: dict[str, str] | None = None) -> str:
    """``step 7 · agent → messages · …8e8d0a824b3c``: the step as the thread page names it (``names``), else its
    number and source."""
    named = (names or {}).get(row.checkpoint_id)
    return named or f"step {row.step} · {row.source} · …{row.checkpoint_id[-12:]}"


def _step_names(store: Store, thread_id: str, rows: list[CheckpointRow]) -> dict[str, str]:
    """Checkpoint id -> its label by the one attribution (``history.attribution``), for the newest
    ``NAMED_STEPS`` of ``rows`` (one namespace); empty when the thread's writes cannot be read."""
    try:
        thread = data.thread_history(store, thread_id)
        keys = [k for k in ((r.checkpoint_ns, r.checkpoint_id) for r in rows[:NAMED_STEPS]) if k in thread.history.nodes]
        made = thread.attributions(store, keys)
    except (NotFound, StoreError):
        return {}
    names = {}
    for key in keys:
        step = f"step {step_label(thread.history, key, made.get(key))}"
        step = step if len(step) <= LABEL_CHARS else step[: LABEL_CHARS - 1] + "…"
        names[key[1]] = f"{step} · …{key[1][-12:]}"
    return names


def _keep_forward(position: dict[str, int], from_key: str, to_key: str) -> None:
    """After a pick: a From newer than To is swapped, so the diff always reads forward in time."""
    a, b = st.session_state.get(from_key), st.session_state.get(to_key)
    if a in position and b in position and position[a] < position[b]:
        st.session_state[from_key], st.session_state[to_key] = b, a
        st.session_state["diff_swapped"] = True


def _pick(label: str, rows: list[CheckpointRow], wanted: str | None, key: str, on_change=None, args=(),
          steps: dict[str, str] | None = None) -> str:
    ids = [r.checkpoint_id for r in rows]
    if st.session_state.get(key) not in ids:
        st.session_state.pop(key, None)
    index = 0 if key in st.session_state else (ids.index(wanted) if wanted in ids else 0)
    names = {r.checkpoint_id: _label(r, steps) for r in rows}
    return st.selectbox(label, ids, index=index, format_func=lambda i: option_text(names[i]), key=key,
                        on_change=on_change, args=args)


def _pick_thread(store: Store) -> str | None:
    """The thread: picked among the newest threads (their titles help), or typed; it lives in ``?thread=``."""
    try:
        choices = data.thread_choices(store, SUGGESTED_THREADS)
    except StoreError as exc:
        st.warning(literal(f"The thread list could not be read for suggestions: {exc}"), icon=":material/warning:")
        choices = []
    asked = st.query_params.get("thread") or None  # ids as the URL spells them (``location.url_id``)
    titles = {url_id(t): title for t, title in choices}
    ids = list(titles)
    if asked and asked not in titles:
        ids.insert(0, asked)
    routes.bind(THREAD_KEY, "thread", None)
    picked = st.selectbox("Thread", ids, key=THREAD_KEY, accept_new_options=True, filter_mode="contains",
                          placeholder="Choose a thread, or type its id",
                          format_func=lambda t: option_text(f"{id_from_url(t)} · {titles[t]}" if titles.get(t)
                                                            else id_from_url(str(t))),
                          help=f"The {SUGGESTED_THREADS} most recently updated threads, by id and title; "
                               "type any other thread's id and press Enter")
    picked = (picked or "").strip() or None
    if picked != asked:  # another thread: the old one's checkpoints mean nothing there
        for name in CLEARED_WITH_THE_THREAD:
            st.query_params.pop(name, None)
    routes.keep(THREAD_KEY, "thread", picked, None)
    return id_from_url(picked) if picked else None


def _way_back(store: Store, thread_id: str | None = None) -> None:
    with st.container(horizontal=True, gap="small"):
        if thread_id:
            routes.link("thread", "Open the thread", routes.thread_params(store, thread_id), icon=":material/timeline:")
        routes.link("threads", "Back to the thread list", icon=":material/arrow_back:")


def _default_to(store: Store, thread_id: str, rows: list[CheckpointRow],
                steps: dict[str, str] | None = None) -> tuple[str, str | None]:
    """The checkpoint shown when the link names none: the newest step that wrote something (one attribution,
    ``history.attribution``), with a line saying so when that is not the newest checkpoint."""
    newest = rows[0]
    try:
        thread = data.thread_history(store, thread_id)
        found = thread.newest_writing(store, (newest.checkpoint_ns, newest.checkpoint_id))
    except (NotFound, StoreError):
        found = None
    by_id = {r.checkpoint_id: r for r in rows}
    if found is None or found.key[1] not in by_id:
        return newest.checkpoint_id, None
    if found.key[1] == newest.checkpoint_id:
        return newest.checkpoint_id, None
    return found.key[1], (f"The newest checkpoint ({_label(newest, steps)}) wrote no field; showing the newest step "
                          f"that did: {_label(by_id[found.key[1]], steps)} ({found.what}).")


def render() -> None:
    st.title("Diff")
    store = data.opened_store()
    if store is None:
        return
    thread_id = _pick_thread(store)
    if not thread_id:
        st.info("Choose a thread above (or type its id), or open this page from a thread.", icon=":material/info:")
        routes.link("threads", "Find a thread in the thread list", icon=":material/search:")
        return
    params = st.query_params
    try:
        timeline = data.timeline(store, thread_id)
    except NotFound:
        st.error(literal(f"There is no thread {quoted(thread_id)} in this store. Check the id, or find the thread in the "
                         "thread list."), icon=":material/error:")
        with st.container(horizontal=True, gap="small"):
            routes.link("threads", "Find it in the thread list", {"q": thread_id}, icon=":material/search:")
            routes.link("threads", "Back to the thread list", icon=":material/arrow_back:")
        return
    except StoreError as exc:
        st.error(literal(exc))
        _way_back(store)
        return
    other = st.text_input("Against another thread", value=params.get("against", ""),  # as the URL spells it
                          placeholder="optional: another thread's id, to compare two runs of one task")
    # the thread's own profile, or the one the page names: its reducers name and check the fields (across two
    # threads, the first one's, as diff --against-thread)
    with profiles.asking(store, thread_id, profile_choice.bind(PROFILE_KEY)), \
            profiles.reading(store, thread_id, rows=timeline) as chosen:
        if other:
            profile_choice.picker(store, thread_id, chosen, PROFILE_KEY, timeline, profile_choice.HELP_BOTH)
            _render_across(store, thread_id, timeline, id_from_url(other))
            return
        st.query_params.pop("against", None)
        profile_choice.picker(store, thread_id, chosen, PROFILE_KEY, timeline)
        _render_pair(store, thread_id, timeline, params)


def _render_pair(store: Store, thread_id: str, timeline: list[CheckpointRow], params) -> None:
    """Two checkpoints of one thread (default: the newest step that wrote a field and its parent), and the replay."""
    namespaces = sorted({r.checkpoint_ns for r in timeline})
    ns = stored_ns(id_from_url(params.get("ns", "")), namespaces)  # a masked one is named as shown
    if ns and ns not in namespaces and len(namespaces) > 1:
        st.warning(literal(f"ns={quoted(name_shown(ns))} in the link is not a namespace of thread {quoted(thread_id)}; "
                           "showing the root graph (pick another below)."), icon=":material/link_off:")
    if len(namespaces) > 1:
        ns = st.selectbox("Namespace", namespaces, index=namespaces.index(ns) if ns in namespaces else 0,
                          format_func=lambda n: option_text(name_shown(n) or "(root graph)"))
    rows = [r for r in timeline if r.checkpoint_ns == ns]  # newest first
    if not rows:
        st.error(literal(f"No checkpoints in namespace {quoted(name_shown(ns))} for thread {quoted(thread_id)}."))
        _way_back(store, thread_id)
        return
    by_id = {r.checkpoint_id: r for r in rows}
    steps = _step_names(store, thread_id, rows)
    position = {r.checkpoint_id: i for i, r in enumerate(rows)}  # 0: the newest
    wanted_from, wanted_to = (id_from_url(params[n]) if params.get(n) else None for n in ("from", "to"))
    unknown = [f"{name} {quoted(wanted)}" for name, wanted in (("from", wanted_from), ("to", wanted_to))
               if wanted and wanted not in by_id]
    default_to, default_note = (_default_to(store, thread_id, rows, steps) if wanted_to not in by_id
                                 else (wanted_to, None))
    if unknown:
        st.warning(literal(f"Not a checkpoint of thread {quoted(thread_id)} in namespace {quoted(name_shown(ns) or 'root')}: "
                           f"{', '.join(unknown)}. Showing the newest step that wrote something instead; pick "
                           "another below, or go back."), icon=":material/warning:")
        _way_back(store, thread_id)
    elif default_note:
        st.caption(literal(default_note))
    if wanted_from in position and wanted_to in position and position[wanted_from] < position[wanted_to]:
        st.info(literal(f"From ({_label(by_id[wanted_from], steps)}) is newer than To ({_label(by_id[wanted_to], steps)}): "
                        "swapped, so the diff reads forward in time."), icon=":material/swap_horiz:")
        wanted_from, wanted_to = wanted_to, wanted_from
        default_to = wanted_to
    if st.session_state.pop("diff_swapped", False):
        st.info("From was newer than To: swapped, so the diff reads forward in time.", icon=":material/swap_horiz:")
    keys = (f"diff-from-{key_text(thread_id)}-{key_text(ns)}", f"diff-to-{key_text(thread_id)}-{key_text(ns)}")
    from_col, to_col = st.columns(2)  # From left of To: the order they happened in
    with to_col:
        to_id = _pick("To (the later checkpoint)", rows, default_to, keys[1], _keep_forward, (position, *keys), steps)
    default_from = wanted_from if wanted_from in by_id else by_id[to_id].parent_checkpoint_id
    with from_col:
        from_id = _pick("From (the earlier checkpoint)", rows, default_from or rows[-1].checkpoint_id, keys[0],
                        _keep_forward, (position, *keys), steps)
    internal = st.toggle("Show LangGraph's internal channels", value=False)
    st.query_params.update({"thread": url_id(thread_id), "from": url_id(from_id), "to": url_id(to_id),
                            "ns": ns_param(ns) if ns else ""})
    try:
        result, check = compare(store, thread_id, from_id, to_id, ns, internal)
    except (NotFound, StoreError, ValueError) as exc:
        st.error(literal(exc))
        return
    audit_trail.record_view("diff_view", thread_id, to_id, ns, from_checkpoint=from_id)
    relation = "parent → child" if result.adjacent else "not a checkpoint and its parent"
    st.caption(literal(f"{_label(by_id[from_id], steps)} → {_label(by_id[to_id], steps)} ({relation})"))
    render_diff(result, check)
    replay = params.get("replay")
    if replay not in (None, "", "0", "1"):
        st.warning(literal(f"replay={quoted(replay)} in the link: replay must be 1 (on) or 0 (off); it is left off."),
                   icon=":material/link_off:")
    if st.toggle("Replay every step of this thread", value=replay == "1", key="diff-replay-all"):
        render_replay_table(store, thread_id, ns)


def _render_across(store: Store, thread_id: str, timeline: list[CheckpointRow], other: str) -> None:
    """A checkpoint of ``thread_id`` against one of ``other`` (root graphs; default: the newest of each)."""
    try:
        other_timeline = data.timeline(store, other)
    except (NotFound, StoreError) as exc:
        st.error(literal(exc))
        return
    rows = [r for r in timeline if not r.checkpoint_ns]
    other_rows = [r for r in other_timeline if not r.checkpoint_ns]
    if not rows or not other_rows:
        st.error("Both threads need a checkpoint in their root graph to be compared.")
        return
    params = st.query_params
    steps = {**_step_names(store, other, other_rows), **_step_names(store, thread_id, rows)}
    from_col, to_col = st.columns(2)
    with from_col:
        from_id = _pick(f"From: a checkpoint of {literal(thread_id)}", rows, id_from_url(params.get("from") or ""),
                        "diff-across-from", steps=steps)
    with to_col:
        to_id = _pick(f"To: a checkpoint of {literal(other)}", other_rows, id_from_url(params.get("to") or ""),
                      "diff-across-to", steps=steps)
    internal = st.toggle("Show LangGraph's internal channels", value=False)
    st.query_params.update({"thread": url_id(thread_id), "against": url_id(other), "from": url_id(from_id),
                            "to": url_id(to_id)})
    st.query_params.pop("ns", None)
    try:
        result = compare_threads(store, thread_id, from_id, other, to_id, internal)
    except (NotFound, StoreError, ValueError) as exc:
        st.error(literal(exc))
        return
    audit_trail.record_view("diff_view", other, to_id, "", from_checkpoint=from_id, from_thread=thread_id)
    by_id = {r.checkpoint_id: r for r in rows + other_rows}
    st.caption(literal(f"{_label(by_id[from_id], steps)} → {_label(by_id[to_id], steps)} (two threads: messages are matched by "
                       "content, since each run gives them ids of its own)"))
    render_diff(result, None, key="diff-across")
