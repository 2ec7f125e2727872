"""Showing a diff and a replay check: shared by the diff page and the thread page's panel."""

from __future__ import annotations

import streamlit as st

from .. import schema as schemas
from ..diff import (
    ProfileDoubt,
    ReplayVerdict,
    StateDiff,
    StepReplay,
    cached_verdicts,
    checked_replay,
    compare_across,
    diff,
    replay_step,
    verdict,
)
from ..diff.doubt import cached_reading
from ..diff.model import CHANGED_WITHOUT_WRITE, NO_FOLD_TEXT
from ..diff.thread_replay import schema_fingerprint
from ..formatting import dumps
from ..history.lineage import MISSING_PARENT
from ..history.location import url_id
from ..store import CheckpointRow, CheckpointState, Store
from . import audit_trail, data, names, routes
from .inert import code_span, literal, plain
from .names import key_text, param
from .progress import progress_bar
from .tables import frame_of
from .values import show_value

MISMATCH_MARK = "replay does not match"
# Material icons, not emoji: emoji need a colour font the browser may not have (they show as boxes).
STATUS_ICONS = {"changed": ":material/edit:", "added": ":material/add_circle:", "removed": ":material/remove_circle:",
                "written": ":material/edit_note:"}


def compare(store: Store, thread_id: str, from_id: str, to_id: str, ns: str = "",
            internal: bool = False) -> tuple[StateDiff, StepReplay | None]:
    """The diff of two checkpoints (decoded through the pages' cache) and, for a parent and its
    child, the child's replay check: computed on raw values, returned with secrets masked."""
    before = data.raw_state(store, thread_id, from_id, ns)
    after = data.raw_state(store, thread_id, to_id, ns)
    thread = data.thread_history(store, thread_id)  # keys only: no history-wide read
    made = thread.attributions(store, [(ns, to_id)]).get((ns, to_id)) if after.parent_checkpoint_id == from_id else None
    result = diff(before, after, internal=internal, made=made)
    if not result.adjacent:
        return data.masked((result, None))
    history = thread.history
    parent = history.nodes.get((ns, from_id))
    sole_child = parent is not None and sum(1 for child in parent.children if child[0] == ns) == 1
    return data.masked((result, replay_step(before, after, sole_child=sole_child)))


def compare_threads(store: Store, thread_id: str, from_id: str, other_thread_id: str, to_id: str,
                    internal: bool = False) -> StateDiff:
    """A checkpoint of one thread against one of another (root graphs): computed on raw values, returned
    with secrets masked."""
    before = data.raw_state(store, thread_id, from_id)
    after = data.raw_state(store, other_thread_id, to_id)
    return data.masked(compare_across(before, after, internal))


@st.cache_resource(hash_funcs=data.HASH_FUNCS, ttl=data.TTL, max_entries=data.MAX_ENTRIES, show_spinner=False)
def _thread_replay(url: str, schema: str, profile: str, thread_id: str, ns: str, newest: str) -> dict[str, list[StepReplay]]:
    return {}  # filled once by the first page run that asks, with its progress bar


def _held_replay(store: Store, thread_id: str, ns: str) -> dict[str, object]:
    """One namespace's replay as ``checked_replay`` reports it (the generic reading's steps when the thread's
    profile is doubted), kept per store, schema, profile, thread, namespace and newest checkpoint: ``steps`` (masked),
    ``doubt`` and the name of the ``schema`` the steps were replayed in."""
    schema = schemas.active()
    newest = data.thread_history(store, thread_id).newest_id
    held = _thread_replay(store.url, schema_fingerprint(schema), data.read_as(store, thread_id), thread_id, ns, newest)
    if "steps" not in held:
        with progress_bar("Replaying every step", "steps") as progress:
            checked = checked_replay(store, thread_id, ns, data.analysis_cache(store), progress)
        held["schema"] = schemas.active().name if checked.doubt is None else "LangGraph (reducers unknown)"
        held["doubt"] = checked.doubt
        held["steps"] = data.masked(checked.steps)
    return held


def cached_thread_replay(store: Store, thread_id: str, ns: str) -> list[StepReplay]:
    """Every step of one namespace replayed, with a progress bar, secrets masked (kept per store, schema, thread,
    namespace and newest checkpoint; verdicts also go to the analysis cache, so the next process replays only new
    steps). When the thread's profile is doubted (``diff.doubt``), the generic reading's steps."""
    return _held_replay(store, thread_id, ns)["steps"]  # type: ignore[return-value]


def replay_doubt(store: Store, thread_id: str, ns: str) -> ProfileDoubt | None:
    """The doubt the namespace's replay raised about the thread's profile (None: none, or not replayed yet)."""
    return _held_replay(store, thread_id, ns).get("doubt")  # type: ignore[return-value]


def replay_schema(store: Store, thread_id: str, namespaces: list[str]) -> str | None:
    """The name of the schema the namespaces' steps were replayed in: the generic one where the profile was
    doubted (None: the active schema)."""
    names = {_held_replay(store, thread_id, ns).get("schema") for ns in namespaces}
    return names.pop() if len(names) == 1 else None  # type: ignore[return-value]


def render_doubt(doubt: ProfileDoubt | None) -> None:
    """The replay's doubt about the thread's profile, where its verdict is shown."""
    if doubt is not None:
        st.warning(literal(doubt.summary()), icon=":material/help:")


def cached_marks(store: Store, thread_id: str, rows: list[CheckpointRow]) -> dict[tuple[str, str], str]:
    """Marks for ``rows`` (a page of the history) from the verdicts the analysis cache already holds (the generic
    reading's where the thread's profile was doubted: ``diff.doubt``)."""
    cache = data.analysis_cache(store)
    found = cached_reading(store, thread_id, rows, cache, cached_verdicts(store, thread_id, rows, cache))
    return {key: step_mark(check) for key, check in found.items()}


def step_mark(check: StepReplay) -> str:
    """The mark a step carries in a list of steps, with its field counts."""
    if check.status == "mismatch":
        changed = sum(1 for f in check.fields if f.changed_without_write)
        mismatched = sum(1 for f in check.mismatches if not f.changed_without_write)
        counts = [f"{n} field(s) {what}" for n, what in ((mismatched, "mismatched"), (changed, CHANGED_WITHOUT_WRITE))
                  if n]
        return f"✗ {', '.join(counts)} · {MISMATCH_MARK}"
    if check.status == "unverified":
        reasons = sorted(check.unverified_by_reason()) or [check.note or "not checked"]
        no_fold = [f.field for f in check.fields if f.no_fold]
        return (f"? {len(check.verified)} verified, {len(check.unverified)} unverified ({'; '.join(reasons)})"
                + (f" · {NO_FOLD_TEXT}: {', '.join(no_fold)}" if no_fold else ""))
    if check.status == "match":
        return f"✓ {len(check.verified)} field(s) verified"
    if check.status == "broken":
        return f"⚠ {(check.note or 'broken history').split(':')[0]}"
    return {"first": "first checkpoint"}.get(check.status, check.status)


def thread_replay(store: Store, thread_id: str, namespaces: list[str], checkpoints: int) -> dict[str, list[StepReplay]]:
    """Namespace -> every step replayed, once the user asks for the check (it reads the whole history:
    opening a thread must not). One checkpoint has no step to replay: no check is offered."""
    if checkpoints < 2 or not st.toggle(
        "Check every step's replay", key=f"replay_marks_{key_text(thread_id)}",
        help=f"{checkpoints} checkpoints: each one is decoded once to replay its writes",
    ):
        return {}
    replays = {ns: cached_thread_replay(store, thread_id, ns) for ns in namespaces}
    for ns in namespaces:
        render_doubt(replay_doubt(store, thread_id, ns))
    return replays


def replay_marks(replays: dict[str, list[StepReplay]]) -> dict[tuple[str, str], str]:
    """``(ns, checkpoint id) -> mark`` for every replayed step."""
    return {(ns, check.checkpoint_id): step_mark(check) for ns, steps in replays.items() for check in steps}


# The replay check's three outcomes, drawn alike on every page: the colour, the icon, the word, and one line
# saying what was checked and what the outcome means.
REPLAY_LOOK = {
    "pass": (st.success, ":material/check_circle:", "Replay matches",
             "each step's stored writes, applied to its parent's state through each field's reducer, give the "
             "stored state: the history is consistent."),
    "unverified": (st.info, ":material/help:", "Replay unverified",
                   "no check disagrees, but some fields could not be checked (a reducer the inspector does not know, "
                   "or a value the store does not hold): not an error in the data."),
    "mismatch": (st.error, ":material/report:", "Replay mismatch",
                 "applying the stored writes through the reducers does not give the stored state: the app's reducer "
                 "differs from the schema's, or the state was changed outside a step (a field no task wrote that "
                 "changed all the same is unexplained whatever its reducer: changed without a write)."),
}


def replay_status(result: ReplayVerdict) -> str:
    """``pass``, ``unverified`` or ``mismatch`` for a thread's (or a step's) counted checks."""
    return "mismatch" if not result.matches else "unverified" if result.unverified else "pass"


def replay_box(status: str, detail: str) -> None:
    """The replay outcome in its colour: the word and ``detail`` (Markdown, already inert), then what it means."""
    box, icon, word, means = REPLAY_LOOK[status]
    box(f"**{word}** · {detail}", icon=icon)
    st.caption(f"What was checked: {means}")


def thread_verdict(replays: dict[str, list[StepReplay]]) -> ReplayVerdict:
    """The counts of a thread's replay over the namespaces replayed (``thread_replay``, ``replay_all``)."""
    return verdict([s for steps in replays.values() for s in steps], list(replays))


def render_verdict(result: ReplayVerdict, compact: bool = False, schema: str | None = None) -> None:
    """The thread's replay in numbers: verified, unverified (and why), mismatched field checks; its line is
    ``ReplayVerdict.summary``, the words ``replay`` prints; ``schema``: the name of the schema replayed in
    (default: the active one)."""
    replay_box(replay_status(result), literal(result.summary(schema or schemas.active().name)))
    if compact:
        return
    a, b, c, d = st.columns([1, 1, 1, 1.5])  # the last label is the longest: whole at 1024 px with the sidebar open
    a.metric("Verified", result.verified, help="field checks whose replay through the reducers matches the store")
    b.metric("Unverified", result.unverified,
             help="field checks the inspector cannot verify: an unknown reducer, values the store does not hold")
    c.metric("Mismatched", result.mismatched, help="field checks whose replay through the reducers disagrees with "
             "the stored state")
    d.metric("Changed without a write", result.changed_without_write,
             help="fields no task wrote in a step whose writes are stored, yet their stored value changed: "
                  "unexplained whatever the reducer (where the schema knows the field, also counted as mismatched)")


def render_replay_table(store: Store, thread_id: str, namespaces: list[str]) -> None:
    """Every step of a thread (the root graph and its subgraph namespaces, as the thread page and ``replay`` count
    them) with its replay mark; mismatched steps name the field and first difference."""
    replays = {ns: cached_thread_replay(store, thread_id, ns) for ns in namespaces}
    steps = [s for ns_steps in replays.values() for s in ns_steps]
    for step in (s for s in steps if s.status == "broken"):
        st.error(f"Not replayed: {step.note}", icon=":material/link_off:")
    bad = [s for s in steps if s.status == "mismatch"]
    for ns in namespaces:
        render_doubt(replay_doubt(store, thread_id, ns))
    render_verdict(thread_verdict(replays), schema=replay_schema(store, thread_id, namespaces))
    if bad:
        st.error(f"{len(bad)} of {len(steps)} step(s): {MISMATCH_MARK}", icon=":material/report:")
        for ns in dict.fromkeys(s.checkpoint_ns for s in bad):
            routes.checkpoint_links(thread_id, [s.checkpoint_id for s in bad if s.checkpoint_ns == ns], ns,
                                    panel="Diff vs parent", lead="Open:", key=f"replay-{key_text(ns)}")
    several = len(replays) > 1
    st.dataframe(
        frame_of([{"step": s.step, "source": s.source, **({"namespace": names.shown(ns)} if several else {}),
                   "checkpoint": s.checkpoint_id, "replay": step_mark(s), "detail": s.detail()}
                  for ns, ns_steps in replays.items() for s in reversed(ns_steps)]),
        hide_index=True, use_container_width=True,
    )


def render_writes(result: StateDiff) -> None:
    st.markdown("**What the nodes wrote**")
    if result.across_threads:
        st.caption("Two threads: no step leads from one to the other, so no writes are shown.")
    elif not result.adjacent:
        st.caption("Not a checkpoint and its parent: the writes in between are not shown.")
    elif not result.wrote:
        st.caption("No field was written in this step.")
    for write in result.wrote:
        st.markdown(f"- {code_span(write['node'])} → **{literal(write['channel'])}**")
        show_value(write["value"], expanded=True)


def render_fields(result: StateDiff) -> None:
    st.markdown("**What the state became**")
    changed = result.changed_fields
    if not changed:
        st.caption("No field changed.")
    for field in changed:
        icon = STATUS_ICONS.get(field.status, "")
        st.markdown(f"{icon} **{literal(field.field)}** · {code_span(field.reducer_label)} · {literal(field.status)}")
        if field.note:
            st.info(literal(field.note))
        lines = [f"- {literal(c.summary)}" for c in field.changes]
        if lines:
            st.markdown("\n".join(lines))
    unchanged = [f"{f.field} ({f.reducer_label})" for f in result.fields if not f.changed]
    if unchanged:
        with st.expander(f"{len(unchanged)} unchanged field(s)"):
            st.text(plain(", ".join(unchanged)))


def render_replay(check: StepReplay | None) -> None:
    if check is None:
        return
    changed = [f for f in check.fields if f.changed_without_write]
    counts = (f"{len(check.verified)} field(s) verified, {len(check.unverified)} unverified, "
              f"{sum(1 for f in check.mismatches if not f.changed_without_write)} mismatched"
              + (f", {len(changed)} {CHANGED_WITHOUT_WRITE}" if changed else ""))
    if check.status == "mismatch":
        details = "; ".join(
            f"{code_span(f.field)}: {literal(f.first_difference or '')}"
            + (f" ({CHANGED_WITHOUT_WRITE})" if f.changed_without_write else "")
            for f in check.mismatches + check.unexplained)
        replay_box("mismatch", f"{MISMATCH_MARK}: {details} ({counts})")
    elif check.status == "unverified":
        why = "; ".join(f"{literal(reason)}: {', '.join(code_span(n) for n in names)}"
                        for reason, names in check.unverified_by_reason().items())
        replay_box("unverified", f"Replay could not verify every field ({counts}). {why or literal(check.note or '')}")
    else:
        replay_box("pass", f"Replay through the reducers matches the stored state ({counts}).")
    no_fold = [f.field for f in check.fields if f.no_fold]
    if no_fold:
        st.caption(f"Written with a reducer the inspector does not know, {NO_FOLD_TEXT} (replace, operator.add, "
                   f"add_messages): {', '.join(code_span(n) for n in no_fold)}. The app's own reducer may.")
    for finding in check.findings:
        st.warning(literal(finding), icon=":material/report:")


def render_diff(result: StateDiff, check: StepReplay | None = None, key: str = "diff") -> None:
    """The replay mark, then the writes beside the resulting changes, then a JSON download."""
    render_replay(check)
    writes_col, fields_col = st.columns([2, 3])
    with writes_col:
        render_writes(result)
    with fields_col:
        render_fields(result)
    across = {"from_thread": result.before_thread_id} if result.across_threads else {}
    st.download_button(
        "Download the diff as JSON",
        audit_trail.exported(lambda: dumps(result), result.thread_id, result.after_id, result.checkpoint_ns,
                             what="diff json", from_checkpoint=result.before_id, **across),
        file_name=f"diff-{key_text(result.thread_id)}-{key_text(result.after_id or '')[-12:]}.json",
        mime="application/json", key=f"{key}-download", on_click="ignore",
    )


def render_parent_diff(store: Store, thread_id: str, row: CheckpointRow, state: CheckpointState) -> None:
    """The thread page's panel: the selected checkpoint against its parent, with its replay check."""
    if not state.parent_checkpoint_id:
        st.caption("The first checkpoint of this namespace: there is no parent to compare with.")
        return
    problem = data.thread_history(store, thread_id).history.problem_of((state.checkpoint_ns, state.checkpoint_id))
    if problem is not None:
        st.error(f"{problem.message}. The replay check stops here.", icon=":material/link_off:")
        if problem.kind == MISSING_PARENT:
            return
    result, check = compare(store, thread_id, state.parent_checkpoint_id, state.checkpoint_id, state.checkpoint_ns)
    render_diff(result, None if problem is not None else check, key=f"panel-{key_text(state.checkpoint_id)}")
    routes.link("diff", "Compare with another checkpoint", icon=":material/difference:", params={
        "thread": url_id(thread_id), "from": url_id(state.parent_checkpoint_id or ""), "to": url_id(state.checkpoint_id),
        "ns": param(state.checkpoint_ns) if state.checkpoint_ns else "", **routes.carried_profile(thread_id)})
