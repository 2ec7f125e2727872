"""The thread panel "Model input": what the model saw at the selected step, and what the step added.

The selected checkpoint's step is the one whose writes are stored against its
parent; when they hold an assistant message, the model ran on the parent's
messages (``inspector.state.model_input``). They are drawn as the model got
them: every message, hidden ones included, text as stored, inline images as
thumbnails decoded and checked with Pillow and served by the dashboard.
Links lead to the nearest model calls before and after on the same branch.
"""

from __future__ import annotations

import streamlit as st

from ..history.attribution import STEP, Attribution
from ..history.checkpoint_kinds import step_label
from ..history.lineage import History, Key
from ..profiles import in_force
from ..state.model_input import MESSAGES, NOT_STORED, ModelInput, SeenMessage, attributed_input, model_writes
from ..store import CheckpointRow, CheckpointState, Store
from . import data, routes
from .conversation_view import show_turn
from .inert import code_span, literal

PANEL = "Model input"
RECENT = 30
LATEST = 3  # the messages shown open; the earlier ones are folded
SCAN = 60  # checkpoints looked at on each side for the nearest model calls


@st.cache_resource(hash_funcs=data.HASH_FUNCS, ttl=data.TTL, max_entries=data.MAX_ENTRIES, show_spinner=False)
def _input(url: str, thread_id: str, ns: str, checkpoint_id: str, generation: int, profile: str,
           _parent: CheckpointState, _child: CheckpointState, _made: Attribution | None) -> ModelInput | None:
    return attributed_input(_parent, _child, _made)


def step_input(store: Store, row: CheckpointRow, state: CheckpointState) -> ModelInput | None:
    """The model input of the step that made ``state`` (cached per checkpoint); None: no model call."""
    if not state.parent_checkpoint_id:
        return None
    key = (state.checkpoint_ns, state.checkpoint_id)
    made = data.thread_history(store, state.thread_id).attributions(store, [key]).get(key)
    if made is None or made.made_by != STEP or MESSAGES not in made.fields:
        return None  # no task of the step wrote messages: no value needs decoding to say so
    parent = data.state(store, state.thread_id, state.parent_checkpoint_id, state.checkpoint_ns)
    return _input(store.url, state.thread_id, state.checkpoint_ns, state.checkpoint_id,
                  data.generation(store, state.thread_id), data.read_as(store, state.thread_id), parent, state, made)


@st.cache_resource(hash_funcs=data.HASH_FUNCS, ttl=data.TTL, max_entries=data.MAX_ENTRIES, show_spinner=False)
def _calls_near(url: str, thread_id: str, ns: str, checkpoint_id: str, generation: int,
                _store: Store, _steps: tuple[tuple[Key, str, frozenset[str]], ...]) -> list[Key]:
    """The keys among ``_steps`` (key, parent id, the step's task ids) whose tasks wrote an assistant message:
    their parents' writes, no state read."""
    parents = {parent for _, parent, _ in _steps}
    stored = dict(_store.iter_writes(thread_id, ns, checkpoint_ids=parents))
    return [key for key, parent, tasks in _steps
            if model_writes([w for w in stored.get(parent, []) if w.task_id in tasks])]


def nearest_calls(store: Store, history: History, key: Key) -> tuple[Key | None, Key | None]:
    """The nearest checkpoints before and after ``key`` on its branch made by a model call (None: not within SCAN)."""
    path = history.path_through(key)
    index = path.index(key)
    window = [k for k in path[max(0, index - SCAN): index + SCAN + 1] if k != key and k[0] == key[0]]
    thread_id = history.node(key).row.thread_id
    made = data.thread_history(store, thread_id).attributions(store, window)
    steps = tuple((k, history.node(k).row.parent_checkpoint_id, frozenset(t.task_id for t in made[k].tasks))
                  for k in window if k in made and made[k].made_by == STEP and MESSAGES in made[k].fields
                  and history.node(k).row.parent_checkpoint_id)
    calls = set(_calls_near(store.url, thread_id, key[0], key[1], data.generation(store, thread_id), store, steps))
    before = next((k for k in reversed(path[:index]) if k in calls), None)
    after = next((k for k in path[index + 1:] if k in calls), None)
    return before, after


def _jumps(store: Store, history: History, key: Key) -> None:
    before, after = nearest_calls(store, history, key)
    left, right = st.columns(2)
    for column, target, what, icon in ((left, before, "Previous", ":material/skip_previous:"),
                                       (right, after, "Next", ":material/skip_next:")):
        with column:
            if target is None:
                st.caption(f"{what} model call: none within {SCAN} steps on this branch")
                continue
            row = history.node(target).row
            made = data.thread_history(store, row.thread_id).attributions(store, [target]).get(target)
            routes.link("thread", f"{what} model call: step {step_label(history, target, made)}",
                        routes.checkpoint_params(row.thread_id, target[1], target[0], PANEL, row.step), icon=icon)


def _summary(seen: ModelInput, step: str) -> str:
    nodes = ", ".join(code_span(n) for n in seen.nodes)
    parts = [f"Step {literal(step)}: {nodes} called the model on **{len(seen.seen)}** message(s)"]
    hidden = sum(1 for m in seen.seen if m.turn.hidden)
    if hidden:
        parts.append(f"{hidden} of them hidden in {in_force().title}'s UI")
    if seen.transient:
        parts.append(f"{len(seen.transient)} put in the state for this call only")
    if seen.images:
        parts.append(f"{seen.images} inline image(s)")
    return " · ".join(parts)


def _messages(messages: list[SeenMessage], key: str, note_transient: bool = True) -> None:
    """The newest ``LATEST`` messages open, the earlier ones (the newest ``RECENT`` of them) in an expander."""
    turns = [m.turn for m in messages]
    earlier, latest = messages[:-LATEST] if len(messages) > LATEST else [], messages[-LATEST:]
    if earlier:
        with st.expander(f"{len(earlier)} earlier message(s), sent too"):
            shown = earlier
            if len(earlier) > RECENT and not st.toggle(f"Show all {len(earlier)}", key=f"mi_all_{key}"):
                st.caption(f"The newest {RECENT} of them.")
                shown = earlier[-RECENT:]
            _draw(shown, turns, key, note_transient)
    _draw(latest, turns, key, note_transient)


def _draw(messages: list[SeenMessage], turns: list, key: str, note_transient: bool) -> None:
    for message in messages:
        with st.container(key=f"mi-{key}-{message.turn.index}"):
            show_turn(message.turn, turns, show_ids=False, everything=True, images=message.images,
                      note=message.transient if note_transient else None)


def model_input_panel(store: Store, thread_id: str, row: CheckpointRow, state: CheckpointState) -> None:
    """The panel: the selected step's model input, the messages it added, and the nearest model calls."""
    history = data.thread_history(store, thread_id).history
    key = (state.checkpoint_ns, state.checkpoint_id)
    made = data.thread_history(store, thread_id).attributions(store, [key]).get(key)
    step = step_label(history, key, made) if key in history.nodes else str(row.step)  # the one attribution
    if not state.parent_checkpoint_id:
        st.caption("The first checkpoint of this namespace: no step led to it, so no model was called.")
    seen = step_input(store, row, state)
    if key in history.nodes:
        _jumps(store, history, key)
    if seen is None:
        if state.parent_checkpoint_id:
            st.info(f"Step {literal(step)} called no model: the writes that made it hold no assistant message.",
                    icon=":material/smart_toy:")
        return
    with st.container(key="model-input"):
        st.markdown(_summary(seen, str(row.step)))  # the step's node(s) follow in the line
        st.caption(NOT_STORED)
        for note in seen.notes:
            st.warning(literal(note), icon=":material/warning:")
        st.markdown("**What the model received** (the messages in the state at the step's start, as stored)")
        _messages(seen.seen, f"seen-{state.checkpoint_id}")
        st.markdown("**What the step added**")
        if not seen.added:
            st.caption("No new message (the step rewrote messages it already held).")
        with st.container(key="model-output"):
            _messages(seen.added, f"added-{state.checkpoint_id}", note_transient=False)
        if seen.rewritten:
            st.caption("Rewrote (same id): " + ", ".join(code_span(m) for m in seen.rewritten))
        if seen.removed:
            st.caption("Removed from the state: " + ", ".join(code_span(m) for m in seen.removed))

