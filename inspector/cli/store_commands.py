"""Commands that read the store as it is: ``threads``, ``timeline``, ``state``; and ``demo``."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from typing import Any

from ..cache import AnalysisCache, CacheError, open_cache
from ..formatting import human_bytes, to_jsonable
from ..history.attribution import attribute_keys
from ..history.checkpoint_kinds import branch_origin
from ..history.durations import seconds_text, step_times
from ..history.lineage import build_history, key_of
from ..history.timeline_rows import kind_columns
from ..profiles import listed_readings, name_profile, reading
from ..safety.audit import AuditTrail
from ..safety.redaction import MARK_PREFIX
from ..schema.default import active_names
from ..settings import Settings, load_settings, store_options
from ..state.encryption import encryption_line
from ..state.interrupts import pending_questions
from ..store import Store, open_store
from ..store.apps import deerflow_url
from ..store.delta import delta_channels
from ..store.model import THREAD_SORTS
from ..store.not_utf8 import quoted
from ..store_url import resolve_db_url
from ..threads.thread_list import SEARCH_LONGEST, hit_records, status_records, thread_records
from ..threads.thread_listing import thread_list
from ..threads.thread_status import STATUSES
from .output import listed, masked, masked_name, print_json, print_table, say, warn

THREAD_HELP = "a thread id, as `threads` lists it (~bytes:<hex> for one that is not UTF-8)"


def add_store_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", help="store URL (default: INSPECTOR_DB, settings, or the demo database)")
    parser.add_argument("--deerflow-home", metavar="DIR",
                        help="read DeerFlow's .deer-flow/data/deerflow.db under DIR (default: $DEER_FLOW_HOME)")
    parser.add_argument("--schema", metavar="MODULE:CLASS",
                        help="the app's state class or graph (module.path:Class or file.py:Class; imports it), "
                             "whose reducers replay and diff use (default: INSPECTOR_SCHEMA, settings, "
                             "or the reducers of each thread's profile)")
    parser.add_argument("--profile", metavar="NAME",
                        help="read every thread with this app's profile (default: INSPECTOR_PROFILE, settings, or "
                             "the one each thread's data shows; langgraph: no app's knowledge)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--quiet", action="store_true", help="no progress counts on stderr")
    parser.add_argument("--reveal", action="store_true",
                        help="show secrets unmasked (only where the operator set allow_reveal)")


# What a command with a thread argument shows, for the audit trail (``audit_log``).
AUDITED = {"timeline": "thread_view", "graph": "thread_view", "replay": "thread_view", "sizes": "thread_view",
           "health": "thread_view",
           "state": "checkpoint_view", "images": "checkpoint_view", "artifacts": "checkpoint_view",
           "uploads": "checkpoint_view", "diff": "diff_view",
           "bundle": "export"}


def _cli_user() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no login name in the environment or the password database
        return "cli:unknown"


def audit(args: argparse.Namespace, url: str, settings: Settings) -> None:
    """One audit line for a command that shows or exports a thread (``checkpoint`` null: the newest), and
    one for ``--reveal``."""
    if not settings.audit_log:
        return
    trail = AuditTrail(settings.audit_log, _cli_user(), url)
    action = AUDITED.get(getattr(args, "command", ""))
    thread = getattr(args, "thread", None)
    checkpoint = getattr(args, "checkpoint", None) or getattr(args, "to_id", None)
    ns = getattr(args, "ns", None)
    if action is not None and thread:
        detail = {"from_checkpoint": args.from_id} if getattr(args, "from_id", None) else {}
        if getattr(args, "against_thread", None):  # a diff across threads: --to names a checkpoint of OTHER
            thread, detail["from_thread"] = args.against_thread, thread
        if action == "export":
            detail.update(what="support bundle", masked=not getattr(args, "reveal", False))
        trail.record(action, thread, checkpoint, ns, via="cli", **detail)
    if getattr(args, "reveal", False):
        trail.record("reveal", thread, checkpoint, ns, via="cli", what=args.command)


def open_from_args(args: argparse.Namespace) -> Store:
    """Activate the schema the flags or settings name, then open the store.

    The schema is read (through LangGraph's graph package) only when one is named here or a command
    needs reducers; each thread's profile decides them then. ``--profile`` names the profile every
    thread is read with (an unknown name: ``ProfileError``, a ``ValueError``)."""
    settings = load_settings()
    spec = getattr(args, "schema", None) or settings.schema
    if spec:  # an operator's code that cannot load here is refused before LangGraph's graph package loads
        from ..schema.operator_code import check_spec

        check_spec(spec)
    if spec or "inspector.schema.reading" in sys.modules:  # once read, none named is put back when none is named
        from .. import schema as schemas

        schemas.activate_spec(spec)
    name_profile(getattr(args, "profile", None) or settings.profile)
    explicit = args.db
    if not explicit and getattr(args, "deerflow_home", None):
        explicit = deerflow_url(args.deerflow_home)
    url = resolve_db_url(explicit, settings)
    audit(args, url, settings)
    store = open_store(url, **store_options(settings))
    try:
        _marks_from_cache(store, settings)
        _stored_namespace(store, args)
    except BaseException:
        store.close()
        raise
    return store


def _marks_from_cache(store: Store, settings: Settings) -> None:
    """Open the analysis cache once, so that its key keys the redaction marks: a namespace masked in one run's
    output is masked the same in the next run and on the dashboard sharing the cache (``--ns`` given as shown
    finds it). Skipped, quietly, where the cache is off or unusable (the commands that use it say why); a cache
    this opening rebuilt is said here, once."""
    try:
        cache = open_cache(settings.cache_dir, settings.cache_max_mb, store, settings.cache_url)
    except (CacheError, OSError):
        return
    if cache is not None:
        if cache.notice:
            warn(f"warning: {cache.notice}")
        cache.close()


def _stored_namespace(store: Store, args: argparse.Namespace) -> None:
    """``--ns`` given as output shows a namespace whose name is masked (``[redacted api-key · … · #…]:<task id>``):
    the thread's namespace masked so in this run (marks are the same from run to run while the analysis cache is
    on, or with ``redact_hash_key``)."""
    ns, thread = getattr(args, "ns", None), getattr(args, "thread", None)
    if not isinstance(ns, str) or MARK_PREFIX not in ns or not isinstance(thread, str):
        return
    found = sorted({r.checkpoint_ns for r in store.timeline_keys(thread) if masked_name(r.checkpoint_ns) == ns})
    if len(found) != 1:
        raise ValueError(f"--ns {quoted(ns)} names no namespace of thread {quoted(thread)} as this run masks them "
                         "(marks change from run to run when the analysis cache is off, unless redact_hash_key is set)"
                         if not found else f"--ns {quoted(ns)} names {len(found)} namespaces of thread {quoted(thread)}")
    args.ns = found[0]


def open_cache_for(store: Store, args: argparse.Namespace) -> AnalysisCache | None:
    """The analysis cache (None when turned off or unusable, said once on stderr); a rebuilt one says so."""
    try:
        settings = load_settings()
        cache = open_cache(settings.cache_dir, settings.cache_max_mb, store, settings.cache_url)
    except CacheError as exc:
        warn(f"warning: {exc}; analysing without the cache")
        return None
    if cache is not None and cache.notice:
        warn(f"warning: {cache.notice}")
    return cache


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("threads", help="list threads")
    add_store_args(p)
    p.add_argument("--search", help="find threads by what they hold: messages, tool calls and their arguments, file "
                   "names, the title, metadata (words, each matching a word's beginning; through the analysis cache's "
                   "index, brought up to date first), thread and checkpoint ids (a substring); best match first. As "
                   f"shown: masked secrets do not match. At most {SEARCH_LONGEST:,} characters")
    p.add_argument("--status", choices=STATUSES,
                   help="only threads of this status: interrupted (waiting on a human), error, busy or idle")
    p.add_argument("--limit", type=int, default=50, metavar="N", help="how many threads to list (default 50)")
    p.add_argument("--offset", type=int, default=0, metavar="N", help="skip the first N threads of the order (default 0)")
    p.add_argument("--sort", choices=THREAD_SORTS, default="newest",
                   help="newest (last update), stored (stored bytes) or checkpoints; over every thread, not one page")
    p.set_defaults(handler=cmd_threads)

    p = sub.add_parser("timeline", help="list a thread's checkpoints")
    add_store_args(p)
    p.add_argument("thread", help=THREAD_HELP)
    p.set_defaults(handler=cmd_timeline)

    p = sub.add_parser("state", help="show the state at a checkpoint")
    add_store_args(p)
    p.add_argument("thread", help=THREAD_HELP)
    p.add_argument("--checkpoint", metavar="ID", help="checkpoint id (default: the newest)")
    p.add_argument("--ns", default="", help="checkpoint namespace (default: the root graph)")
    p.add_argument("--internal", action="store_true", help="include LangGraph's internal channels")
    p.set_defaults(handler=cmd_state)

    p = sub.add_parser("demo", help="write the demo database and its thread folders")
    p.add_argument("--out", metavar="DIR", help="output folder (default: ./demo-data)")
    p.set_defaults(handler=cmd_demo)


def cmd_threads(args: argparse.Namespace) -> int:
    for flag, value in (("--limit", args.limit), ("--offset", args.offset)):
        if value < 0:
            raise ValueError(f"{flag} must be 0 or more, got {value}")
    from .progress import StderrProgress

    with open_from_args(args) as store:
        cache = open_cache_for(store, args)
        try:
            with StderrProgress("indexing the threads written since the last search", args.quiet,
                                unit="threads") as progress:
                listing = thread_list(store, args.search, args.limit, args.offset, args.sort,
                                      mask=None if getattr(args, "reveal", False) else masked, cache=cache,
                                      status=args.status, progress=progress)
            chosen = listed_readings(store, listing.threads, cache)
        finally:
            if cache is not None:
                cache.close()
    if args.json:
        print_json({"total": listing.total, "threads": [
            {**to_jsonable(t), "profile": _profile_json(chosen.get(t.thread_id))} for t in listing.threads]})
        return 0
    records = [{**row, **status, **(hit if args.search else {})} for row, status, hit in
               zip(thread_records(listing.threads, chosen), status_records(listing.threads), hit_records(listing.threads))]
    print_table(None, records, prose=("title", "status", "snippet"),
                formats={"last update": lambda d: d.strftime("%Y-%m-%d %H:%M:%S"), "stored bytes": human_bytes})
    say(f"{len(listing.threads)} of {listing.total} thread(s)" + (", best match first" if args.search else ""))
    return 0


def _profile_json(chosen: Any) -> dict[str, Any] | None:
    """A thread's profile in ``threads --json``: its name, title and why."""
    return None if chosen is None else {"name": chosen.name, "title": chosen.title, "reason": chosen.reason}


def cmd_timeline(args: argparse.Namespace) -> int:
    with open_from_args(args) as store:
        rows = store.timeline(args.thread)
        branches = store.branch_threads(args.thread)
        history = build_history(rows)
        made = attribute_keys(store, history, history.ordered)
        note = getattr(store, "history_note", None)  # a store that keeps no history says why the timeline is short
    origin = branch_origin(rows)
    kinds = [kind_columns(history, key_of(r)) for r in rows]
    times = {t.key: t for t in step_times(history, made)}
    if args.json:
        def flow(row: Any) -> dict[str, Any]:
            key = key_of(row)
            attribution, took = made.get(key), times.get(key)
            if attribution is None:  # a duplicate row: laid out once
                return {}
            return {"made_by": attribution.made_by, "label": attribution.label, "nodes": list(attribution.nodes),
                    "wrote": list(attribution.fields), "note": attribution.note or None,
                    "tasks": [{"node": t.node, "task_id": t.task_id, "task_path": t.task_path, "kind": t.kind,
                               "wrote": list(t.fields), "channels": list(t.channels)} for t in attribution.tasks],
                    "started_at": took.started if took else None,
                    "duration_s": took.seconds if took else None, "waiting": took.waiting if took else False}

        print_json({"thread_id": args.thread, "branched_from": origin, "branches": branches, "history_note": note,
                    "checkpoints": [{**to_jsonable(r), **k, **flow(r)} for r, k in zip(rows, kinds)],
                    "problems": [{"kind": p.kind, "message": p.message,
                                  "checkpoints": [{"checkpoint_ns": ns, "checkpoint_id": cid} for ns, cid in p.keys]}
                                 for p in history.problems]})
        return 0
    def took(row: Any) -> str:
        time = times.get(key_of(row))
        return "" if time is None or time.seconds is None else seconds_text(time.seconds) + (" wait" if time.waiting else "")

    def node(row: Any) -> str:
        attribution = made.get(key_of(row))
        return "" if attribution is None else ", ".join(attribution.nodes) or (
            "" if attribution.made_by == "step" else attribution.what)

    print_table(
        ["step", "node", "wrote", "took", "source", "kind", "mode", "namespace", "checkpoint", "parent", "stored"],
        [
            (r.step, node(r), ", ".join(made[key_of(r)].fields) if key_of(r) in made else "", took(r), r.source,
             k["kind"], k["mode"], r.checkpoint_ns, r.checkpoint_id, r.parent_checkpoint_id, human_bytes(r.stored_bytes))
            for r, k in zip(rows, kinds)
        ],
    )
    if origin is not None:
        say(f"branched from thread {listed(origin.parent_thread_id)} at checkpoint {origin.parent_checkpoint_id or '?'}"
              + (f" (message {origin.parent_message_id})" if origin.parent_message_id else ""))
    for branch in branches:
        say(f"branch: thread {listed(branch.thread_id)} from checkpoint {branch.parent_checkpoint_id or '?'}"
              + (f", created {branch.created_at}" if branch.created_at else ""))
    for problem in history.problems:
        say(f"problem: {problem.message}")
    for row in rows:
        for problem in row.problems:
            say(f"problem: checkpoint {listed(row.checkpoint_id)}: {problem}")
    if note:
        say(f"note: {note}")
    return 0


def state_payload(state: Any, internal: bool) -> dict[str, Any]:
    from ..diff.model import channel_reducer, reducer_text

    schema = active_names()  # reducer names, read from the default schema's source when no other is named
    delta = delta_channels(state.metadata)
    return {
        "thread_id": state.thread_id,
        "checkpoint_ns": state.checkpoint_ns,
        "checkpoint_id": state.checkpoint_id,
        "parent_checkpoint_id": state.parent_checkpoint_id,
        "metadata": state.metadata,
        "schema": schema.name,
        "reducers": {name: reducer_text(*channel_reducer(name, schema.reducer_name(name), delta))
                     for name in state.values},
        "values": state.values,
        "internal": state.internal if internal else None,
        "channel_bytes": state.channel_bytes,
        "rebuilt_channels": list(state.rebuilt_channels),
        "delta_sources": state.delta_sources,
        "writes": state.writes,
        "pending_questions": [{"id": q.id, "question": q.question or None, "task_path": q.task_path}
                              for q in pending_questions(state.writes)],
        "problems": [p.as_dict() for p in state.problems],
        "encryption": encryption_line(state),
    }


def cmd_state(args: argparse.Namespace) -> int:
    with open_from_args(args) as store, reading(store, args.thread) as chosen:
        state = masked(store.state(args.thread, args.checkpoint, args.ns))
        if args.json:
            print_json({**state_payload(state, args.internal), "profile": chosen.as_json()}, keys=False)  # masked above
            return 0
        _print_state(state, args, chosen.line())
    return 0


def _print_state(state: Any, args: argparse.Namespace, profile_line: str) -> None:
    from ..state.fields import delta_source, reducer_label

    schema = active_names()
    delta = delta_channels(state.metadata)
    say(f"thread {listed(state.thread_id)}  checkpoint {listed(state.checkpoint_id)}  "
        f"ns {listed(state.checkpoint_ns) if state.checkpoint_ns else '(root)'}")
    channels = {**state.values, **(state.internal if args.internal else {})}
    say(profile_line)
    say(f"schema {schema.name}")
    print_table(
        ["field", "reducer", "stored", "value"],
        [
            (name, reducer_label(name, schema, name in state.rebuilt_channels, name in delta).removeprefix("reducer "),
             delta_source(name, state) if name in state.rebuilt_channels else human_bytes(state.channel_bytes.get(name)),
             json.dumps(to_jsonable(value), ensure_ascii=False))
            for name, value in ((n, channels[n]) for n in schema.order(channels))
        ],
    )
    for write in state.writes:
        say(f"pending write: {write.channel} ({human_bytes(write.size)}) by task {write.task_id}")
    for question in pending_questions(state.writes):
        say(f"waiting for an answer: {question.question or '(the interrupt carries no question text)'}")
    encrypted = encryption_line(state)
    if encrypted:
        say(f"encrypted: {encrypted}")
    for problem in state.problems:
        say(f"problem [{problem.field or 'checkpoint'}]: {problem.message}")


def cmd_demo(args: argparse.Namespace) -> int:
    from ..demo import default_demo_dir, write_demo

    db = write_demo(args.out or default_demo_dir())
    say(f"demo database written to {db}")
    return 0
