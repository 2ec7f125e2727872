"""One attribution of work to checkpoints: which task(s) produced a checkpoint and which fields each wrote.

The rule (DESIGN rule 9): a checkpoint is named by the tasks whose writes are stored against its
*parent*; those writes, applied to the parent's state, give it (LangGraph's old ``metadata.writes``
convention, Studio's labels, what "Diff vs parent" shows). Writes stored against a checkpoint are
*pending*: they belong to its child. Every surface that says "node X wrote field F at step N" (the
tree and table labels, the "wrote" column, the diff, field views, the flow grid, the graph, the CLI
``timeline`` and ``graph``) asks this module.

Public names:

- ``attribute(history, key, writes) -> Attribution``: the pure rule, from a ``History`` and the write
  keys (``Store.write_keys``) of the checkpoint's parent and grandparent (``writes_needed``).
- ``attribute_keys(store, history, keys) -> {key: Attribution}``: the same for a page of keys, reading
  only the write keys of those checkpoints' parents and grandparents (never a value, but ``Send``
  packets' targets): a visible page costs a visible page.
- ``pending_tasks(history, key, writes) -> tuple[TaskWrites, ...]``: the tasks that ran (or are
  running, or were interrupted) *from* ``key``: its own stored writes.
- ``last_writes(store, history, key, fields) -> {field: Attribution}``: for each field, the newest
  checkpoint at or before ``key`` (on its lineage) whose attribution wrote it: "last written at step
  N by node X".
- ``newest_writing(store, history, key) -> Attribution | None``: the newest checkpoint at or before
  ``key`` (on its lineage) whose attribution wrote any state field: the step worth showing when the
  newest one wrote nothing (a run's end, an input).
- ``Attribution.label`` (``"7 · view_image_middleware → viewed_images, messages"``), ``.fields``,
  ``.nodes``, ``.writers(field)``; ``TaskWrites.node``.

How tasks are named, from the writes' keys: ``~__pregel_pull, NODE`` is NODE; a pushed task
(``~__pregel_push, I, ...``) is the node of the I-th ``Send`` written to ``__pregel_tasks`` in the
step before (stored against the grandparent); ``~__interrupt__, ...`` is an ``update_state`` (LangGraph
does not store ``as_node``); a subgraph's tasks are named by their node inside its namespace, and
the parent graph's task that ran the subgraph by its node. Where a backend keeps no task path (a
saver read through its API), a task is named from the namespace its subgraph ran in, or from the
one node the previous step triggered (``branch:to:NODE``, ``Send``); otherwise ``task <id>``.

How checkpoints that are not graph steps are named: ``input`` (a new run's input, which LangGraph
does not store as a write; the next step's ``__start__`` task writes it into the state), ``update``
(``update_state``: its writes are stored against the parent when the parent was the newest
checkpoint; otherwise LangGraph stores them nowhere, and that is said), ``fork`` (a copy), and
checkpoints written straight through a saver, named by their metadata's ``writes`` where present.
Where only keys were read (SQLite's history layout carries no ``source``), the kind is inferred
from the parent's writes: update writes make an update, task writes a step.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

from ..store import WriteKey, WriteRecord, is_internal_channel
from ..store.model import CANCELLED, ERROR_CHANNEL, TASKS_CHANNEL
from .lineage import History, Key

if TYPE_CHECKING:
    from ..store import Store

PULL = "~__pregel_pull, "
PUSH = "~__pregel_push, "
UPDATE = "~__interrupt__"
INTERRUPT_CHANNEL = "__interrupt__"
RESUME_CHANNEL = "__resume__"
BRANCH_TO = "branch:to:"
UPDATE_NODE = "update_state"
NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"

# what made a checkpoint
STEP, INPUT, UPDATE_KIND, FORK, FIRST, PUT, UNKNOWN = "step", "input", "update", "fork", "first", "put", "unknown"

WritesOf = Mapping[Key, Sequence[WriteKey]]


@dataclass(frozen=True)
class TaskWrites:
    """One task's writes: its node, and the channels it wrote in order (state fields and LangGraph's own)."""

    node: str
    task_id: str
    task_path: str
    channels: tuple[str, ...]
    kind: str = "pull"  # "pull", "push" (a Send), "update" (update_state), "metadata" (a put's metadata), "task"
    bytes: int = 0
    errors: tuple[str, ...] = ()  # the exception class of each error it wrote ("" where the value was not read)

    @property
    def fields(self) -> tuple[str, ...]:
        """The state fields it wrote (LangGraph's channels left out)."""
        return tuple(c for c in self.channels if not is_internal_channel(c))

    @property
    def interrupted(self) -> bool:
        return INTERRUPT_CHANNEL in self.channels

    @property
    def errored(self) -> bool:
        """It wrote an error (``__error__``): it failed, or LangGraph cancelled it; either way it is still due."""
        return ERROR_CHANNEL in self.channels

    @property
    def cancelled(self) -> bool:
        """Every error it wrote is a ``CancelledError``: LangGraph stopped it because a task beside it failed (or
        the run was cancelled); it did not fail itself."""
        return self.errored and bool(self.errors) and all(e == CANCELLED for e in self.errors)

    @property
    def failed(self) -> bool:
        """It wrote an error of its own (an error whose class was not read counts as one)."""
        return self.errored and not self.cancelled

    @property
    def triggers(self) -> tuple[str, ...]:
        """The nodes it triggered for the next step (``branch:to:NODE`` writes)."""
        return tuple(c[len(BRANCH_TO):] for c in self.channels if c.startswith(BRANCH_TO))


@dataclass(frozen=True)
class Attribution:
    """What produced one checkpoint: ``made_by`` (step, input, update, fork, first, put, unknown) and the tasks."""

    key: Key
    step: int | None
    made_by: str
    tasks: tuple[TaskWrites, ...] = ()
    sends: tuple[str, ...] = ()  # nodes the tasks pushed to the next step with Send
    note: str = ""  # why the tasks are unknown, where they are
    resumed: bool = False  # the step ran after an interrupt was resumed

    @property
    def nodes(self) -> tuple[str, ...]:
        """The nodes that ran, each once, in task order."""
        return tuple(dict.fromkeys(t.node for t in self.tasks))

    @property
    def fields(self) -> tuple[str, ...]:
        """The state fields written, each once, in task order."""
        return tuple(dict.fromkeys(f for t in self.tasks for f in t.fields))

    def writers(self, field_name: str) -> tuple[str, ...]:
        """The nodes that wrote ``field_name`` into this checkpoint."""
        return tuple(dict.fromkeys(t.node for t in self.tasks if field_name in t.fields))

    @property
    def what(self) -> str:
        """``view_image_middleware → viewed_images, messages``; ``search ×2 → found``; ``input``; ``update_state → todos``."""
        if self.tasks:
            groups: dict[tuple[str, tuple[str, ...]], int] = {}
            for task in self.tasks:
                group = (task.node, task.fields)
                groups[group] = groups.get(group, 0) + 1
            parts = []
            for (node, fields), count in groups.items():
                name = f"{node} ×{count}" if count > 1 else node
                parts.append(f"{name} → {', '.join(fields)}" if fields else name)
            text = "; ".join(parts)
            return f"{text} (resumed)" if self.resumed else text
        if self.made_by == STEP:
            return "step"
        return {UPDATE_KIND: UPDATE_NODE, UNKNOWN: "?"}.get(self.made_by, self.made_by)

    @property
    def label(self) -> str:
        """``7 · view_image_middleware → viewed_images, messages``."""
        return f"{'?' if self.step is None else self.step} · {self.what}"


def writes_needed(history: History, keys: Iterable[Key]) -> list[Key]:
    """The checkpoints whose write keys ``attribute`` needs for ``keys``: themselves (a keys-only input
    checkpoint is told by its own ``__start__`` task), their parents and grandparents."""
    needed: dict[Key, None] = {}
    for key in keys:
        needed[key] = None
        parent = history.nodes[key].parent if key in history.nodes else None
        if parent is not None:
            needed[parent] = None
            grand = history.nodes[parent].parent if parent in history.nodes else None
            if grand is not None:
                needed[grand] = None
    return list(needed)


def _sends(writes: Sequence[WriteKey]) -> list[str | None]:
    return [w.send_to for w in writes if w.channel == TASKS_CHANNEL]


def _triggered(writes: Sequence[WriteKey]) -> list[str]:
    """Nodes the writes start in the next step: ``branch:to:NODE`` targets and ``Send`` targets."""
    found = [w.channel[len(BRANCH_TO):] for w in writes if w.channel.startswith(BRANCH_TO)]
    found += [s for s in _sends(writes) if s]
    return list(dict.fromkeys(found))


def _namespace_tasks(history: History) -> dict[str, str]:
    """``task id -> node`` from the subgraph namespaces (``node:task_id``) the history holds."""
    named: dict[str, str] = {}
    for ns in history.namespaces:
        for part in ns.split("|"):
            node, _, task_id = part.partition(":")
            if task_id:
                named[task_id] = history.node_name(node)
    return named


def _group(writes: Sequence[WriteKey]) -> list[list[WriteKey]]:
    """Writes grouped by task, in order of first appearance."""
    tasks: dict[tuple[str, str], list[WriteKey]] = {}
    for write in writes:
        tasks.setdefault((write.task_id, write.task_path), []).append(write)
    return list(tasks.values())


def _is_resume(task: list[WriteKey]) -> bool:
    """The resume command's own write (``Command(resume=...)``: the null task, ``__resume__`` only)."""
    return all(w.channel == RESUME_CHANNEL for w in task) and (task[0].task_id == NULL_TASK_ID or not task[0].task_path)


def name_tasks(writes: Sequence[WriteKey], before: Sequence[WriteKey] = (), by_id: Mapping[str, str] | None = None,
               after_input: bool = False) -> list[TaskWrites]:
    """The tasks of one step, named: ``writes`` are stored against the checkpoint the step ran from,
    ``before`` against its parent (whose ``Send``s and triggers name pushed and path-less tasks);
    ``after_input``: the step ran from a new run's input, so it is ``__start__``'s."""
    by_id = by_id or {}
    sends = _sends(before)
    triggered = ["__start__"] if after_input else _triggered(before)
    groups = [g for g in _group(writes) if not _is_resume(g)]
    unnamed = [g for g in groups if not g[0].task_path and g[0].task_id not in by_id]
    out = []
    for task in groups:
        path, task_id = task[0].task_path, task[0].task_id
        channels = tuple(dict.fromkeys(w.channel for w in task))
        size = sum(w.size for w in task)
        errors = tuple(w.error or "" for w in task if w.channel == ERROR_CHANNEL)
        if path.startswith(PULL) and "," not in path[len(PULL):]:
            node, kind = path[len(PULL):], "pull"
        elif path.startswith(PUSH):
            index = path[len(PUSH):].split(",")[0].strip()
            target = sends[int(index)] if index.isdigit() and int(index) < len(sends) else None
            node, kind = target or "sent task", "push"
        elif path.startswith(UPDATE):
            node, kind = UPDATE_NODE, "update"
        elif task_id in by_id:
            node, kind = by_id[task_id], "task"
        elif not path and len(unnamed) == 1 and len(triggered) == 1:
            node, kind = triggered[0], "task"
        else:
            node, kind = path or f"task {task_id[:8]}", "task"
        out.append(TaskWrites(node, task_id, path, channels, kind, size, errors))
    return out


def _metadata_tasks(metadata: object) -> list[TaskWrites]:
    """Tasks from a checkpoint's metadata ``writes`` (``{node: {field: value}}``), the old convention that
    DeerFlow's own puts keep."""
    writes = metadata.get("writes") if isinstance(metadata, dict) else None
    if not isinstance(writes, dict):
        return []
    return [TaskWrites(str(node), "", "", tuple(str(f) for f in value) if isinstance(value, dict) else (), "metadata")
            for node, value in writes.items()]


def _is_input(history: History, key: Key, writes: WritesOf) -> bool:
    """Whether ``key`` holds a new run's input (its source, or where only keys were read, its own
    ``__start__`` task, or being a namespace's first checkpoint at step -1)."""
    node = history.nodes[key]
    if not node.row.keys_only:
        return node.row.source == INPUT
    return any(w.task_path == PULL + "__start__" for w in writes.get(key, ())) or (
        node.row.step == -1 and (node.parent is None or node.parent[0] != key[0]))


def _same_ns_parent(history: History, key: Key) -> Key | None:
    parent = history.nodes[key].parent if key in history.nodes else None
    return parent if parent is not None and parent[0] == key[0] else None


def _oldest_child(history: History, parent: Key, key: Key) -> bool:
    children = [c for c in history.nodes[parent].children if c[0] == key[0]]
    return bool(children) and children[0] == key  # children are kept oldest first


def attribute(history: History, key: Key, writes: WritesOf) -> Attribution:
    """What produced checkpoint ``key``: the tasks whose writes are stored against its parent.

    ``writes`` holds ``Store.write_keys`` for (at least) the keys ``writes_needed`` names.
    """
    node = history.nodes[key]
    row = node.row
    parent = node.parent
    source = None if row.keys_only else row.source
    starts = _is_input(history, key, writes) if row.keys_only else False
    if parent is None:
        if source is None:
            source = INPUT if starts or row.step == -1 else None
        return Attribution(key, row.step, INPUT if source == INPUT else FIRST if source in (None, "loop") else source)
    if parent[0] != key[0]:  # a subgraph's first checkpoint: the parent graph's task started it
        return Attribution(key, row.step, INPUT if source in (None, INPUT) else source,
                           note=f"started by the parent graph's task (namespace {key[0].split('|')[-1].split(':')[0]})")
    stored = writes.get(parent, ())
    grand = _same_ns_parent(history, parent)
    before = writes.get(grand, ()) if grand is not None else ()
    tasks = name_tasks(stored, before, _namespace_tasks(history), _is_input(history, parent, writes))
    updates = [t for t in tasks if t.kind == "update"]
    steps = [t for t in tasks if t.kind != "update"]
    resumed = any(_is_resume(g) for g in _group(stored))
    if source is None:  # keys only: infer what made it from the parent's writes (a later child of a fork is unknown)
        oldest = _oldest_child(history, parent, key)
        source = ("update" if updates and not steps else "loop" if steps else None) if oldest else None
        source = INPUT if source is None and starts else source
    if source == "loop":
        sends = tuple(w.send_to for w in stored if w.channel == TASKS_CHANNEL and w.send_to)
        return Attribution(key, row.step, STEP, tuple(steps), sends, resumed=resumed)
    if source == INPUT:
        return Attribution(key, row.step, INPUT, note="a new run's input; the next step's __start__ task writes it")
    if source == "update":
        if updates and _oldest_child(history, parent, key):
            return Attribution(key, row.step, UPDATE_KIND, tuple(updates))
        from_metadata = _metadata_tasks(row.metadata)
        if from_metadata:
            return Attribution(key, row.step, PUT, tuple(from_metadata), note="named by its metadata's writes")
        return Attribution(key, row.step, UPDATE_KIND, note="what update_state wrote is not stored (its parent "
                           "was no longer the newest checkpoint, or it was written straight through the saver)")
    if source == FORK:
        return Attribution(key, row.step, FORK, note="a copy of a checkpoint, made to run on from it")
    if source is None:
        return Attribution(key, row.step, UNKNOWN, note="no writes are stored against its parent")
    return Attribution(key, row.step, source, tuple(_metadata_tasks(row.metadata)))


def pending_tasks(history: History, key: Key, writes: WritesOf) -> tuple[TaskWrites, ...]:
    """The tasks stored against ``key`` itself (they produce its child): for ``key`` and its parent in ``writes``."""
    parent = _same_ns_parent(history, key)
    before = writes.get(parent, ()) if parent is not None else ()
    return tuple(name_tasks(writes.get(key, ()), before, _namespace_tasks(history), _is_input(history, key, writes)))


def next_nodes(history: History, key: Key, writes: WritesOf) -> tuple[str, ...]:
    """The nodes due to run from ``key`` (LangGraph's ``next``), as far as the write keys tell: what the
    writes that produced it triggered (``branch:to:``, ``Send``), less the tasks that already finished from
    it (its own stored writes; an interrupted, failed or cancelled task is still due). A new run's input is due to
    ``__start__``; a copy's or an unstored update's next is unknown (empty)."""
    made = attribute(history, key, writes)
    # one task per triggered node, one per Send (a node sent to three times runs three tasks)
    due = ["__start__"] if made.made_by == INPUT else [*dict.fromkeys(n for t in made.tasks for n in t.triggers),
                                                       *made.sends]
    done = Counter(t.node for t in pending_tasks(history, key, writes) if not t.interrupted and not t.errored)
    left = []
    for name in due:
        if done[name]:
            done[name] -= 1
        else:
            left.append(name)
    return tuple(n for n in dict.fromkeys(left) if n != "__end__")


def attribute_keys(store: "Store", history: History, keys: Sequence[Key]) -> dict[Key, Attribution]:
    """``attribute`` for each of ``keys``, reading only the write keys of their parents and grandparents."""
    keys = [k for k in keys if k in history.nodes]
    writes = store.write_keys(history.nodes[keys[0]].row.thread_id, writes_needed(history, keys)) if keys else {}
    return {key: attribute(history, key, writes) for key in keys}


LAST_WRITE_BATCH = 200


def _lineage_attributions(store: "Store", history: History, key: Key, batch: int) -> Iterator[Attribution]:
    """The attributions of the checkpoints at or before ``key`` (along its lineage, in its namespace), newest
    first; write keys are read in batches of ``batch`` checkpoints, only as far as the caller goes."""
    lineage = history.lineage(key)[::-1] if key in history.nodes else []  # newest first
    if not lineage:
        return
    thread_id = history.nodes[key].row.thread_id
    writes: dict[Key, Sequence[WriteKey]] = {}
    for start in range(0, len(lineage), batch):
        chunk = lineage[start : start + batch]
        missing = [k for k in writes_needed(history, chunk) if k not in writes]
        fetched = store.write_keys(thread_id, missing) if missing else {}
        writes.update({k: fetched.get(k, ()) for k in missing})
        for checkpoint in chunk:
            yield attribute(history, checkpoint, writes)


def last_writes(store: "Store", history: History, key: Key, fields: Iterable[str],
                batch: int = LAST_WRITE_BATCH) -> dict[str, Attribution]:
    """For each of ``fields``, the attribution of the newest checkpoint at or before ``key`` (along its
    lineage, in its namespace) that wrote it. Walks back in batches of write keys and stops once every
    field is found; a field no checkpoint on the lineage wrote is left out."""
    wanted = set(fields)
    found: dict[str, Attribution] = {}
    if not wanted:
        return found
    for attribution in _lineage_attributions(store, history, key, batch):
        for name in attribution.fields:
            if name in wanted and name not in found:
                found[name] = attribution
        if wanted <= set(found):
            break
    return found


def newest_writing(store: "Store", history: History, key: Key, batch: int = LAST_WRITE_BATCH) -> Attribution | None:
    """The attribution of the newest checkpoint at or before ``key`` (along its lineage, in its namespace)
    that wrote at least one state field (what a checkpoint's metadata says it wrote, as DeerFlow's run-duration
    checkpoint does, is not a state field: the answer is the same whether its row was read in full or not); None
    when none on the lineage did. Reads write keys in batches and stops at the first found."""
    return next((a for a in _lineage_attributions(store, history, key, batch)
                 if any(t.fields for t in a.tasks if t.kind != "metadata")), None)


TaskNames = Mapping[tuple[str, str], str]  # (task id, task path) -> node


def node_of(record: WriteRecord, names: TaskNames | None = None) -> str:
    """The node a write came from: as the checkpoint's attribution names its task (``names``), else by the
    attribution's rules from the write's own task path (``~__pregel_pull, agent`` -> ``agent``)."""
    if names and (record.task_id, record.task_path or "") in names:
        return names[(record.task_id, record.task_path or "")]
    key = WriteKey(record.task_id, record.task_path or "", record.idx, record.channel, record.size)
    return name_tasks([key])[0].node


def task_names(made: Attribution | None) -> dict[tuple[str, str], str]:
    """``(task id, task path) -> node`` for the tasks of an attribution."""
    return {(t.task_id, t.task_path): t.node for t in made.tasks} if made is not None else {}
