"""The history widgets of the thread page: navigator, checkpoint table and tree."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Callable

import streamlit as st

from ..history.attribution import Attribution
from ..history.checkpoint_kinds import DELTA_COUNTERS, delta_marker, kind_at, step_label
from ..history.lineage import History, Key
from ..history.location import Location
from ..history.node_colours import NodeColours
from ..history.thread_history import Memo, computed
from ..history.timeline_rows import timeline_records
from ..history.tree_chart import TreeData, tree_data
from ..profiles import in_force
from ..store.not_utf8 import quoted
from . import graph_figure, history_tree, names, native_controls, play_view, routes
from .diff_view import MISMATCH_MARK
from .inert import literal, option_text, show_table
from .names import key_text
from .tables import EXACT, frame_of, in_units

PAGE_SIZE = 40
PLAY_KEY = play_view.PLAY_KEY
Select = Callable[[Location], None]


def location_of(history: History, key: Key) -> Location:
    """The location of a checkpoint, its step included (the URL names the step for people)."""
    return play_view.location(history, key)


_location = location_of


# Up to this many checkpoints on a branch, every step of the slider is named by what made it; beyond, the
# steps around the selected one (the others by their number).
SLIDER_NAMED = 5_000
LABEL_CHARS = 72


def _label(history: History, key: Key, made: Attribution | None) -> str:
    """``step 7 · agent → messages``: the one attribution, as the tree and the table name the step (plain text:
    the slider sets it as text)."""
    row = history.node(key).row
    if made is None:  # off the steps named: the step from the checkpoint id
        return f"step {row.step}"
    text = f"step {step_label(history, key, made)}"
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


ONLY_CHECKPOINT = "One checkpoint on this branch: nothing to step through or play."


def _slider_labels(history: History, path: list[Key], index: int,
                   made_for: Callable[[list[Key]], dict[Key, Attribution]] | None) -> list[str]:
    """Each option of the step slider as it is shown: named by what made it (``SLIDER_NAMED``), else its number."""
    named = range(len(path)) if len(path) <= SLIDER_NAMED else range(max(0, index - PAGE_SIZE),
                                                                      min(len(path), index + PAGE_SIZE + 1))
    made = made_for([path[i] for i in named]) if made_for is not None else {}
    labels = [f"step {history.node(k).row.step}" for k in path]  # a number (or None): nothing to escape
    for i in named:
        labels[i] = option_text(_label(history, path[i], made.get(path[i])))
    return labels


def navigator(history: History, key: Key, select: Select,
              made_for: Callable[[list[Key]], dict[Key, Attribution]] | None = None,
              leave: Callable[[], None] | None = None, memo: Memo = computed) -> None:
    """Play, previous / next along the selected checkpoint's branch (also the left / right arrow keys), a step
    slider whose steps are named by ``made_for(keys)`` (their attributions, the names kept by ``memo``), and
    Play's speed and view; with ``leave``, the presenter view's controls: everything in one row, no slider, and
    Leave (Esc) calling it."""
    compact = leave is not None
    path = play_view.line(history, key)  # the branch Play walks, where the step is on it
    index = path.index(key)
    playing = play_view.playing(history.node(key).row.thread_id)
    if len(path) == 1 and not playing and not compact:  # nothing to step through: no buttons, slider or speed
        st.caption(ONLY_CHECKPOINT)
        return
    # the buttons in one row that wraps, the slider below it: at 1024 px nothing is cut to "P."
    controls = st.container(horizontal=True, gap="small", vertical_alignment="center", key="nav_controls")
    slider_col = st.container()
    play_col = prev_col = next_col = controls
    if play_col.button("Pause" if playing else "Play", key="nav_play", shortcut="P",
                       icon=":material/pause:" if playing else ":material/play_arrow:",
                       help="Step through this branch of the history from its first step, at the speed chosen "
                       "(key P); Prev / Next (or the arrow keys) pause and step"):
        if playing:
            play_view.stop()
        else:
            play_view.start(history, path, index, select)
        st.rerun()
    # Prev / Next move in their callbacks, before the click's run: one run shows the step, not a run and a rerun
    prev_col.button("Prev", icon=":material/chevron_left:", disabled=index == 0, key="nav_prev",
                    shortcut="Left", help="The previous step on this branch (left arrow key)",
                    on_click=_step, args=(history, path, key, select, -1))
    next_col.button("Next", icon=":material/chevron_right:", disabled=index == len(path) - 1, key="nav_next",
                    shortcut="Right", help="The next step on this branch (right arrow key)",
                    on_click=_step, args=(history, path, key, select, 1))
    if compact:
        with controls:
            play_view.controls(compact=True)
            play_view.show_choice(compact=True)
            graph_figure.mode_choice(label_visibility="collapsed")
            if st.button("Leave", icon=":material/close_fullscreen:", key="present_leave", shortcut="Escape",
                         help="Back to the thread page (Esc)"):
                leave()
        return
    if playing:
        slider_col.caption(f"Playing this branch from checkpoint {index + 1} of {len(path)}; Pause, Prev or Next stop it")
    elif len(path) > 1:
        window = index if len(path) > SLIDER_NAMED else None  # the steps named move with the selected one
        labels = memo(("slider", path[0], path[-1], len(path), window, in_force().name, made_for is None),
                      lambda: _slider_labels(history, path, index, made_for))
        with slider_col:
            native_controls.scrubber("Checkpoint on this branch", labels, index, SLIDER_KEY,
                                     partial(_moved_to, history, path, select))
    # Play's speed and view in a popover beside the buttons, named by what is chosen: drawn at every step (the
    # choice is kept), built in the browser only when opened; inside, one under the other, each one's options
    # wrapping (``page_css.CHOICES_WRAP``)
    settings = controls.popover(play_view.settings_label(), icon=":material/tune:", key="nav_settings",
                                help="Play's speed and what each Play frame shows")
    with settings, st.container(gap="medium", key="nav_choices"):
        play_view.controls()
        play_view.show_choice()
    if not playing and index == len(path) - 1 and st.session_state.pop(play_view.ENDED_KEY, False):
        st.caption("Reached the newest checkpoint of this branch.")


SLIDER_KEY = "nav_slider"


def _moved_to(history: History, path: list[Key], select: Select, index: int) -> None:
    """The slider or the tree's list picked ``path[index]`` (in its callback, before the run it starts)."""
    st.session_state.pop(play_view.MOVED_KEY, None)
    select(_location(history, path[index]))


STEPPED_KEY = "nav_stepped"  # the move (-1 Prev, 1 Next) that led to this run, for ``stepped``


def stepped() -> int:
    """The move Prev (-1) or Next (1) made to the step this run shows, 0 for anything else (read once)."""
    return st.session_state.pop(STEPPED_KEY, 0)


def _step(history: History, path: list[Key], key: Key, select: Select, by: int) -> None:
    """Prev (``by`` -1) / Next (1) from ``key`` on ``path``, the page's run drew them at; while Play runs, from
    the frame its last tick drew (the page has not run since), and Play pauses."""
    if play_view.playing(history.node(key).row.thread_id):
        play_view.stop()
        at = st.session_state.get(play_view.AT_KEY)
        key = at if at in path else key
    st.session_state.pop(play_view.MOVED_KEY, None)  # the step chosen here, not the one Play last moved to
    index = path.index(key) + by
    if 0 <= index < len(path):
        select(_location(history, path[index]))
        st.session_state[STEPPED_KEY] = by


def render(history: History, key: Key, select: Select, marks: dict[Key, str] | None = None,
           complete: Callable[[list[Key]], None] | None = None,
           marks_for: Callable[[list[Key]], dict[Key, str]] | None = None,
           made_for: Callable[[list[Key]], dict[Key, Attribution]] | None = None,
           colours: NodeColours | None = None, memo: Memo = computed) -> None:
    """The checkpoint tree and table of one page of the history; ``complete(keys)`` reads that page's full
    rows, ``marks_for(keys)`` gives that page's replay marks when ``marks`` does not, ``made_for(keys)`` their
    attributions (which tasks produced each checkpoint, what they wrote); ``colours``: the thread's node colours
    (the tree's dots); ``memo`` keeps the summary of the whole history."""
    pages = history.page_count(PAGE_SIZE)
    page = history.page_of(key, PAGE_SIZE)
    if pages > 1:
        page = st.number_input(f"History page (of {pages}, newest first)", 1, pages, page + 1,
                               key=f"hist_page_{key_text(*key)}") - 1
    keys = history.page(page, PAGE_SIZE)
    if complete is not None:
        complete(keys)
    if not marks and marks_for is not None:
        marks = marks_for(keys)
    made = made_for(keys) if made_for is not None else {}
    st.caption(memo(("summary", in_force().name), lambda: _summary(history)))
    _problems(history)
    _replay_warning(history, marks or {})
    if len(history) == 1:  # nothing to pick from: the one row as text, no chart or grid to load
        _only_checkpoint(history, keys, marks or {}, made)
        return
    if _view() == TABLE_VIEW:
        _table(history, keys, key, select, marks or {}, made)
    else:
        _tree(history, keys, key, select, made, colours)


# The history as a tree or a table: one is drawn (the other's chart or grid is not sent, nor is its script
# loaded), the choice kept in the URL (``?history=table``) and carried to the next checkpoint shown.
TREE_VIEW, TABLE_VIEW = "Tree", "Table"
HISTORY_PARAM = routes.HISTORY_PARAM
HISTORY_KEY = "history_view"
TABLE_COLUMNS = ["step", "node", "wrote", "source", "kind", "mode", "time", "namespace", "branch", "size", "fork",
                 "replay"]


def _view() -> str:
    views = [TREE_VIEW, TABLE_VIEW]
    problem = routes.bind_choice(HISTORY_KEY, HISTORY_PARAM, TREE_VIEW, views, "views")
    if problem:
        st.warning(literal(problem), icon=":material/link_off:")
    chosen = st.segmented_control("History view", views, key=HISTORY_KEY, label_visibility="collapsed") or TREE_VIEW
    routes.keep(HISTORY_KEY, HISTORY_PARAM, chosen.lower(), TREE_VIEW.lower())
    return chosen


def _only_checkpoint(history: History, keys: list[Key], marks: dict[Key, str], made: dict[Key, Attribution]) -> None:
    """A one-checkpoint history: its table row as a two-column Markdown table (it fits the narrow column), the
    columns that say something, then its id."""
    from ..formatting import human_bytes

    (record,) = _records(history, keys, marks, made)
    record["size"] = human_bytes(record["size"])
    record["fork"] = "yes" if record["fork"] else None
    if record["time"] is not None:
        record["time"] = record["time"].strftime("%H:%M:%S.%f")[:-3]
    checkpoint_id = record["checkpoint"]  # its end, as the Diff page names it (the whole id is in the URL)
    record["checkpoint"] = f"…{checkpoint_id[-12:]}" if len(checkpoint_id) > 14 else checkpoint_id
    shown = [c for c in TABLE_COLUMNS if c in ("step", "source") or record.get(c) not in (None, "")] + ["checkpoint"]
    show_table([{"checkpoint": "id" if c == "checkpoint" else c, " ": record[c]} for c in shown], ["checkpoint", " "])


# what the table and the tree show of names from the data (namespaces, node names): masked as names
NAME_COLUMNS = ("node", "namespace", "branch", "ns")


def _records(history: History, keys: list[Key], marks: dict[Key, str], made: dict[Key, Attribution]) -> list[dict]:
    return names.shown_records(timeline_records(history, keys, marks, made), NAME_COLUMNS)


def _problems(history: History) -> None:
    """Broken links of the history (parent cycles, missing parents, duplicate ids), named one by one; then what
    the rows read so far hold that LangGraph does not write (a step that is no step number), each naming its row."""
    for problem in history.problems[:20]:
        st.error(problem.message, icon=":material/link_off:")
    if len(history.problems) > 20:
        st.error(f"… and {len(history.problems) - 20} more broken link(s) in this history", icon=":material/link_off:")
    rows = [(key, problem) for key in history.ordered for problem in history.node(key).row.problems]
    for (ns, checkpoint_id), problem in rows[:20]:
        where = f" (namespace {quoted(ns)})" if ns else ""
        st.warning(literal(f"Checkpoint {quoted(checkpoint_id)}{where}: {problem}"), icon=":material/report:")
    if len(rows) > 20:
        st.warning(f"… and {len(rows) - 20} more checkpoint(s) with a problem", icon=":material/report:")


def _replay_warning(history: History, marks: dict[Key, str]) -> None:
    bad = [k for k in history.ordered if marks.get(k, "").endswith(MISMATCH_MARK)]
    if bad:
        steps = ", ".join(str(history.node(k).row.step) for k in bad[:10])
        st.warning(f"{len(bad)} step(s) whose replay does not match the stored state: step {literal(steps)}"
                   " (see the history's Table and the Diff vs parent panel)", icon=":material/report:")
        for ns in dict.fromkeys(k[0] for k in bad[:10]):
            routes.checkpoint_links(history.node(bad[0]).row.thread_id, [k[1] for k in bad[:10] if k[0] == ns], ns,
                                    panel="Diff vs parent", lead="Open:")


def _summary(history: History) -> str:
    parts = [f"{len(history)} checkpoint(s)"]  # lanes are a layout (subgraphs have their own), not branches
    if history.forks:
        parts.append(f"{len(history.forks)} fork(s)")
    namespaces = {k[0] for k in history.ordered if k[0]}
    if namespaces:
        parts.append(f"{len(namespaces)} subgraph namespace(s)")
    if history.orphans:
        parts.append(f"{len(history.orphans)} checkpoint(s) whose parent is missing")
    kinds = Counter(kind.name for key in history.ordered if (kind := kind_at(history, key)) is not None)
    parts += [f"{n} {name}" for name, n in sorted(kinds.items())]
    marked = Counter(delta_marker(node.row.metadata) for node in history.nodes.values())
    marked.pop(None, None)
    app_marker = next((m for m in marked if m != DELTA_COUNTERS), None)  # the app's own delta-mode marker
    if app_marker:
        parts.append(f"delta mode: {app_marker} on {marked[app_marker]} checkpoint(s)")
    elif marked[DELTA_COUNTERS]:
        parts.append(f"delta channels on {marked[DELTA_COUNTERS]} checkpoint(s)")
    read = sum(1 for node in history.nodes.values() if not node.row.keys_only)
    if read < len(history) and (kinds or marked):
        parts.append(f"(kinds counted on the {read} checkpoint(s) read so far)")
    return " · ".join(parts)


# The tree is one drawing from step to step (``history_tree``): a step sends the page's rows, and the browser
# redraws them in the element it has.
TREE_KEY = "tree"
TREE_KEYS_KEY = "tree_keys"


def _tree(history: History, keys: list[Key], key: Key, select: Select, made: dict[Key, Attribution],
          colours: NodeColours | None = None) -> None:
    data = names.shown_tree(tree_data(history, keys, key, made, colours=colours))
    history_tree.tree("The history tree: a checkpoint per row, newest first", data, TREE_KEY,
                      partial(_moved_to, history, keys, select))
    _tree_keys(history, keys, key, select, data)


def _tree_keys(history: History, keys: list[Key], key: Key, select: Select, data: TreeData) -> None:
    """The tree's labels as a list the keyboard reaches (Tab, then the arrow keys or typing: the checkpoint chosen
    is shown)."""
    several = len({p["branch"] for p in data.points}) > 1
    labels = {(p["ns"], p["checkpoint"]): p["label"] + (f" ({p['branch']})" if several else "") for p in data.points}
    native_controls.option_list("Checkpoint (the tree's labels, by keyboard)",
                                [option_text(labels.get((names.shown(k[0]), k[1]), k[1])) for k in keys],
                                keys.index(key) if key in keys else -1, TREE_KEYS_KEY,
                                partial(_moved_to, history, keys, select),
                                help="Every checkpoint of the tree above, named as it labels them",
                                placeholder="Choose a checkpoint of this page")


def _table(history: History, keys: list[Key], key: Key, select: Select, marks: dict[Key, str],
           made: dict[Key, Attribution]) -> None:
    frame, units = in_units(frame_of(_records(history, keys, marks, made)), "size",
                            help="stored bytes: checkpoint and its writes")
    event = st.dataframe(
        frame,
        hide_index=True,
        on_select="rerun",
        selection_mode="single-row",
        key=f"cp_table_{key_text(*key)}",
        column_order=[c for name in TABLE_COLUMNS for c in ((name, EXACT.format(name)) if name == "size" else (name,))],
        column_config={
            "time": st.column_config.DatetimeColumn(format="HH:mm:ss.SSS"),
            **units,
            "node": st.column_config.TextColumn(help="the task(s) whose writes produced this checkpoint (stored "
                                                "against its parent)"),
            "wrote": st.column_config.TextColumn(help="the state fields those tasks wrote into this checkpoint"),
            "kind": st.column_config.TextColumn(help="what this checkpoint was written for outside a graph step: "
                                                     "the app's own kinds (by its profile), or put"),
            "mode": st.column_config.TextColumn(help="delta: written in delta mode (the app's marker, or "
                                                     "LangGraph's delta counters)"),
        },
    )
    rows = event.selection.rows if event is not None else []
    if rows:
        picked = keys[rows[0]]
        if picked != key:
            select(_location(history, picked))
            st.rerun()
