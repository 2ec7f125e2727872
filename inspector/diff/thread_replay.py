"""A whole thread replayed: every step of one namespace, streamed, and remembered in the analysis cache.

Checkpoints are read oldest first in bounded batches (``Store.iter_states``), each
decoded once, with the items it shares with its parent carried forward; a state
is dropped as soon as its last child was checked, and each stored message is
rebuilt for the reducers once (``MessageMemo``).

Each step's verdict is a fact about two immutable checkpoints under one schema:
its status, its metadata's step and source, and per field the status, reducer and
why it is unverified. Those are kept in the analysis cache, keyed by the
checkpoint and a fingerprint of the schema (its fields and its reducers' code).
They hold no value: a mismatch's first difference and a reducer's error quote
values, so a step that has them is replayed again when shown, and what each step
wrote is described again from the stored writes (small: what nodes returned).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ..analysis_cache import AnalysisCache
from ..history.lineage import History, HistoryProblem, build_history, key_of
from ..profiles import reads_thread
from ..schema.default import DEFAULT, DEFAULT_SCHEMA_NAME, DEFAULT_SCHEMA_SOURCES, thread_schema
from ..store import CheckpointRow, CheckpointState, NotFound, Store, WriteRecord
from ..store.not_utf8 import quoted
from .model import FieldCheck, StepReplay
from .writes import describe_writes, is_update_write, step_writes, update_writes

if TYPE_CHECKING:
    from .. import schema as schemas

KIND = "replay/2"
FLUSH_EVERY = 256
# What a verdict depends on besides the schema: the replay's own code.
_REPLAY_CODE = [Path(__file__).with_name(name)
                for name in ("replay.py", "replay_messages.py", "writes.py", "nested.py", "model.py", "task_order.py",
                             "unwritten.py")]

Progress = Callable[[int, int], None]


def _files(paths: list[Path]) -> list[str]:
    return [hashlib.sha256(path.read_bytes()).hexdigest() for path in paths]


@cache
def default_fingerprint() -> str:
    """DeerFlow's ThreadState, read without loading it: its source, the schema reader's, LangGraph's version."""
    parts = [DEFAULT_SCHEMA_NAME, importlib.metadata.version("langgraph"), *_files([*DEFAULT_SCHEMA_SOURCES, *_REPLAY_CODE])]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def schema_fingerprint(schema: schemas.Schema) -> str:
    """A hash of what a verdict depends on: the schema's fields, channel kinds and reducers' code, and the
    replay's own code (DeerFlow's ThreadState: ``default_fingerprint``)."""
    from ..schema.default_schema import is_default

    if is_default(schema):
        return default_fingerprint()
    parts = [schema.name, repr(schema.fields), repr(sorted(schema.opaque)), importlib.metadata.version("langgraph"),
             *_files(_REPLAY_CODE)]
    for name in sorted(schema.reducers):
        parts.append(name)
        parts.extend(_code(schema.reducers[name]))
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def _fingerprint(schema: schemas.Schema | None) -> str:
    """The given schema's fingerprint, else the active one's, without loading the schema when it is the default."""
    if schema is not None:
        return schema_fingerprint(schema)
    loaded = sys.modules.get("inspector.schema.reading")
    if loaded is not None:
        return schema_fingerprint(loaded.active())
    chosen = thread_schema()
    return default_fingerprint() if chosen is None or chosen == DEFAULT else schema_fingerprint(chosen)




def _code(function: Any, depth: int = 0) -> list[str]:
    """A function's bytecode and constants, nested functions and wrapped ones included."""
    code = getattr(function, "__code__", None) or getattr(type(function).__call__, "__code__", None)
    out = [getattr(function, "__qualname__", type(function).__qualname__)]
    if code is not None:
        out += [code.co_code.hex(), repr([c for c in code.co_consts if not hasattr(c, "co_code")])]
        out += [c.co_code.hex() for c in code.co_consts if hasattr(c, "co_code")]
    for inner in (getattr(function, "__wrapped__", None), getattr(function, "func", None)):
        if inner is not None and depth < 3:
            out += _code(inner, depth + 1)
    return out


# -- a verdict as a fact ------------------------------------------------------------


def _remembering_messages(needed: bool) -> Any:
    """``MessageMemo`` for the steps replayed (nothing to load when every verdict is cached)."""
    if not needed:
        from contextlib import nullcontext

        return nullcontext()
    from .replay import remembering_messages

    return remembering_messages()


def _selection(parent: CheckpointState, child: CheckpointState, sole_child: bool) -> str | None:
    """Which of the parent's stored writes made ``child`` (as ``replay_step`` chose them)."""
    from .replay import _written_channels

    source = child.metadata.get("source")
    if step_writes(parent, source) is not None:
        return "input" if source == "input" else "loop"
    if sole_child and update_writes(parent, _written_channels(parent, child)) is not None:
        return "update"
    return None


def _selected(selection: str | None, writes: list[WriteRecord], source: str | None) -> list[WriteRecord] | None:
    if selection == "update":
        return [w for w in writes if is_update_write(w)]
    return step_writes(SimpleNamespace(writes=writes), source) if selection else None


def encode(result: StepReplay, selection: str | None) -> list[Any]:
    """A step's verdict without any value: statuses, reducers, reasons (the inspector's own words)."""
    fields = [[f.field, f.reducer, f.status, f.written, f.reason, f.inferred, f.channel] for f in result.fields]
    return [result.status, result.step, result.source, result.note, fields, selection, bool(result.findings)]


def _field_fact(field: Any) -> bool:
    return (type(field) is list and 5 <= len(field) <= 7 and all(type(t) is str for t in field[:3])
            and type(field[3]) is bool and all(t is None or type(t) is str for t in field[4:6])
            and (len(field) < 7 or type(field[6]) is str))


def _valid(fact: Any) -> bool:
    """Whether a cached verdict has the shape ``encode`` writes (another shape is replayed again)."""
    return (type(fact) is list and len(fact) == 7 and type(fact[0]) is str and (fact[1] is None or isinstance(fact[1], int))
            and all(t is None or type(t) is str for t in (fact[2], fact[3], fact[5])) and type(fact[4]) is list
            and all(_field_fact(f) for f in fact[4]) and type(fact[6]) is bool)


def _verdicts(cache: AnalysisCache, store: Store, thread_id: str, kind: str, keys: list[tuple[str, str]]) -> tuple[str, dict]:
    """The store's fact identity, and the verdicts ``cache`` holds for ``keys`` (those of the right shape: the
    others are dropped, and replayed again)."""
    identity = store.fact_identity()
    held = cache.get(identity, thread_id, kind, keys)
    wrong = [key for key, fact in held.items() if not _valid(fact)]
    if wrong:
        cache.put(identity, thread_id, kind, {}, replacing=wrong)
    return identity, {key: fact for key, fact in held.items() if _valid(fact)}


def _details_hold_values(fact: list[Any]) -> bool:
    """A mismatch's first difference and a reducer's error quote values: such steps are replayed again."""
    return fact[0] == "mismatch" or fact[6]


def decode(row: CheckpointRow, fact: list[Any], parent_writes: list[WriteRecord]) -> StepReplay:
    status, step, source, note, fields, selection, _ = fact
    result = StepReplay(thread_id=row.thread_id, checkpoint_ns=row.checkpoint_ns, checkpoint_id=row.checkpoint_id,
                        parent_checkpoint_id=row.parent_checkpoint_id, step=step, source=source, status=status,
                        note=note)
    result.fields = [FieldCheck(name, reducer, state, written, None, reason, *rest[:2])
                     for name, reducer, state, written, reason, *rest in fields]
    result.wrote = describe_writes(_selected(selection, parent_writes, source))
    return result


def cached_verdicts(store: Store, thread_id: str, rows: list[CheckpointRow], cache: AnalysisCache | None,
                    schema: schemas.Schema | None = None) -> dict[tuple[str, str], StepReplay]:
    """The verdicts the cache holds for ``rows`` (a page of a history), without what each step wrote."""
    if cache is None or not rows:
        return {}
    kind = f"{KIND}/{_fingerprint(schema)}"
    keys = [(r.checkpoint_ns, r.checkpoint_id) for r in rows]
    facts = _verdicts(cache, store, thread_id, kind, keys)[1]
    return {(r.checkpoint_ns, r.checkpoint_id): decode(r, facts[(r.checkpoint_ns, r.checkpoint_id)], [])
            for r in rows if (r.checkpoint_ns, r.checkpoint_id) in facts}


# -- a whole thread -----------------------------------------------------------------


@reads_thread
def replay_thread(store: Store, thread_id: str, ns: str = "", schema: schemas.Schema | None = None,
                  cache: AnalysisCache | None = None, progress: Progress | None = None,
                  keys: list[CheckpointRow] | None = None) -> list[StepReplay]:
    """Replay every checkpoint of one namespace of a thread against its parent, oldest first.

    Each state is decoded once and dropped as soon as its last child was checked; verdicts ``cache``
    holds are not replayed again (see the module's docstring). ``keys``: the thread's
    ``Store.timeline_keys`` when the caller has read them.
    """
    schema = _namespace_schema(schema, ns)
    history = build_history(keys if keys is not None else store.timeline_keys(thread_id))
    rows = sorted((history.node(k).row for k in history.ordered if k[0] == ns), key=lambda r: r.checkpoint_id)
    if not rows:
        raise NotFound(f"no checkpoints in namespace {quoted(ns)} for thread {quoted(thread_id)}")
    broken = _broken_steps(store, thread_id, history, rows)
    siblings: dict[str, int] = {}
    for row in rows:
        if row.parent_checkpoint_id:
            siblings[row.parent_checkpoint_id] = siblings.get(row.parent_checkpoint_id, 0) + 1
    kind = f"{KIND}/{_fingerprint(schema)}"
    identity, facts = _verdicts(cache, store, thread_id, kind, [(ns, r.checkpoint_id) for r in rows]) if cache else ("", {})
    facts = {cid: fact for (_, cid), fact in facts.items()}
    replayed = {r.checkpoint_id for r in rows if r.checkpoint_id not in broken
                and (r.checkpoint_id not in facts or _details_hold_values(facts[r.checkpoint_id]))}
    done: dict[str, StepReplay] = dict(broken)
    new: dict[tuple[str, str], list[Any]] = {}
    tick = _ticker(progress, len(rows))
    with _remembering_messages(bool(replayed)):
        for child, result, selection in _replayed(store, thread_id, ns, rows, replayed, siblings, schema):
            done[child.checkpoint_id] = result
            if child.checkpoint_id not in facts and cache is not None:
                new[(ns, child.checkpoint_id)] = encode(result, selection)
                if len(new) >= FLUSH_EVERY:
                    cache.put(identity, thread_id, kind, new)
                    new = {}
            tick()
    if cache is not None:
        cache.put(identity, thread_id, kind, new)
    writes = _parent_writes(store, thread_id, ns, [r for r in rows if r.checkpoint_id not in done])
    for row in rows:
        if row.checkpoint_id not in done and row.checkpoint_id not in facts:  # its state could not be read
            unreadable = HistoryProblem("unreadable", (key_of(row),), "this checkpoint could not be read")
            done[row.checkpoint_id] = _broken(row, unreadable)
        elif row.checkpoint_id not in done:
            done[row.checkpoint_id] = decode(row, facts[row.checkpoint_id], writes.get(row.parent_checkpoint_id, []))
            tick()
    return [done[r.checkpoint_id] for r in rows]


def _namespace_schema(schema: schemas.Schema | None, ns: str) -> schemas.Schema | None:
    """The schema of the subgraph writing ``ns`` when the schema in force is a compiled graph's (its subgraphs'
    own states); else ``schema`` as given (None: the active one, not loaded when it is the default)."""
    if not ns:
        return schema
    if schema is None:
        loaded = sys.modules.get("inspector.schema.reading")
        if loaded is None:
            return None
        schema = loaded.active()
    return schema.for_namespace(ns)


def _broken_steps(store: Store, thread_id: str, history: History, rows: list[CheckpointRow]) -> dict[str, StepReplay]:
    """Checkpoints on a broken link of the history (parent cycle, missing parent, duplicate id): not replayed,
    their step is ``broken`` and its note names the problem (step and source read from their metadata)."""
    problems = {r.checkpoint_id: p for r in rows if (p := history.problem_of(key_of(r))) is not None}
    if not problems:
        return {}
    full = {r.checkpoint_id: r for r in store.checkpoint_rows(thread_id, [(rows[0].checkpoint_ns, cid) for cid in problems])}
    return {cid: _broken(full.get(cid) or history.node((rows[0].checkpoint_ns, cid)).row, problem)
            for cid, problem in problems.items()}


def _broken(row: CheckpointRow, problem: HistoryProblem) -> StepReplay:
    return StepReplay(
        thread_id=row.thread_id, checkpoint_ns=row.checkpoint_ns, checkpoint_id=row.checkpoint_id,
        parent_checkpoint_id=row.parent_checkpoint_id, step=row.step, source=row.source, status="broken",
        note=problem.message,
    )


def _ticker(progress: Progress | None, total: int) -> Callable[[], None]:
    count = [0]

    def tick() -> None:
        count[0] += 1
        if progress is not None:
            progress(count[0], total)

    return tick


def _replayed(store: Store, thread_id: str, ns: str, rows: list[CheckpointRow], replayed: set[str],
              siblings: dict[str, int],
              schema: schemas.Schema | None) -> Iterator[tuple[CheckpointState, StepReplay, str | None]]:
    """Replay the steps in ``replayed`` from a stream of their states and their parents'."""
    if not replayed:
        return
    from .. import schema as schemas  # the reducers: loaded only when a step is replayed
    from .replay import _step, replay_step

    schema = schemas.resolve(schema)
    parent_of = {r.checkpoint_id: r.parent_checkpoint_id for r in rows}
    needed = replayed | {parent_of[cid] for cid in replayed if parent_of[cid]}
    waiting: dict[str, int] = {}  # a held state -> its children still to replay
    for cid in replayed:
        if parent_of[cid] in needed:
            waiting[parent_of[cid]] = waiting.get(parent_of[cid], 0) + 1
    held: dict[str, CheckpointState] = {}
    for state in store.iter_states(thread_id, ns, checkpoint_ids=needed):
        cid = state.checkpoint_id
        if cid in replayed:
            parent_id = state.parent_checkpoint_id
            sole_child = siblings.get(parent_id or "", 0) == 1
            parent = held.get(parent_id) if parent_id else None
            if parent is None and parent_id in parent_of:  # a parent stored with a later id: read it alone
                parent = store.state(thread_id, parent_id, ns)
            if not parent_id:
                yield state, _step(state, "first", "the first checkpoint: nothing to replay"), None
            elif parent is None:
                yield state, _step(state, "unverified", "the parent checkpoint is not in the store"), None
            else:
                yield state, replay_step(parent, state, schema, sole_child), _selection(parent, state, sole_child)
            if parent_id in waiting:
                waiting[parent_id] -= 1
                if not waiting[parent_id]:
                    held.pop(parent_id, None)
        if waiting.get(cid):
            held[cid] = state


def _parent_writes(store: Store, thread_id: str, ns: str, rows: list[CheckpointRow]) -> dict[str, list[WriteRecord]]:
    """The stored writes of the parents of ``rows``: what their steps wrote (no state is read)."""
    parents = {r.parent_checkpoint_id for r in rows if r.parent_checkpoint_id}
    return dict(store.iter_writes(thread_id, ns, checkpoint_ids=parents)) if parents else {}
