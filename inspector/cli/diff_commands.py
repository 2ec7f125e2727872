"""``diff`` (what a step did to the state, in reducer terms) and ``replay`` (did the reducers do it)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..profiles import reading
from ..store import Store
from .output import masked, print_json, print_table, say
from .progress import StderrProgress
from .store_commands import THREAD_HELP, add_store_args, open_cache_for, open_from_args

if TYPE_CHECKING:
    from ..diff import StateDiff, StepReplay


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diff", help="what changed between two checkpoints, field by field")
    add_store_args(p)
    p.add_argument("thread", help=THREAD_HELP)
    p.add_argument("--from", dest="from_id", metavar="ID",
                   help="the earlier checkpoint (default: the parent of --to; with --against-thread: the newest)")
    p.add_argument("--to", dest="to_id", metavar="ID",
                   help="the later checkpoint (default: the newest; with --against-thread: one of OTHER's)")
    p.add_argument("--against-thread", metavar="OTHER",
                   help="compare with a checkpoint of another thread (two runs of one task: messages aligned by content)")
    p.add_argument("--ns", default="", help="checkpoint namespace (default: the root graph)")
    p.add_argument("--internal", action="store_true", help="include LangGraph's internal channels")
    p.set_defaults(handler=cmd_diff)

    p = sub.add_parser("replay", help="replay every step's writes through the reducers; exit 1 on a mismatch or a "
                                      "value changed without a write (unverified fields do not count)")
    add_store_args(p)
    p.add_argument("thread", help=THREAD_HELP)
    p.add_argument("--ns", default="", help="checkpoint namespace (default: the root graph)")
    p.set_defaults(handler=cmd_replay)


def cmd_diff(args: argparse.Namespace) -> int:
    from ..diff import diff_checkpoints, diff_threads  # the reducers, and so LangGraph's graph package: only here

    with open_from_args(args) as store, reading(store, args.thread) as chosen:
        if args.against_thread:
            result = diff_threads(store, args.thread, args.against_thread, args.from_id, args.to_id, args.ns,
                                  args.internal)
        else:
            result = diff_checkpoints(store, args.thread, args.from_id, args.to_id, args.ns, args.internal)
        result = masked(result)
        if args.json:
            print_json(result)
        else:
            print_diff(result, chosen.line())
    return 0


def print_diff(result: StateDiff, profile_line: str | None = None) -> None:
    from ..schema.default import active_schema_name  # naming the schema does not load it

    if result.across_threads:
        say(f"thread {result.before_thread_id} at {result.before_id} -> thread {result.thread_id} at "
            f"{result.after_id}  (two threads)")
    else:
        relation = "parent -> child" if result.adjacent else "any two checkpoints"
        say(f"thread {result.thread_id}  {result.before_id} -> {result.after_id}  ({relation})")
    if profile_line:
        say(profile_line)
    say(f"schema {active_schema_name()}")
    for write in result.wrote:
        say(f"  {write['node']} wrote {write['channel']}: {write['value']}")
    for field in result.changed_fields:
        note = f": {field.note}" if field.note else ""
        say(f"{field.field} ({field.reducer_label}) {field.status}{note}")
        for change in field.changes:
            say(f"  {change.summary}")
    unchanged = [f for f in result.fields if not f.changed]
    if unchanged:
        say(f"unchanged: {', '.join(f'{f.field} ({f.reducer_label})' for f in unchanged)}")
    for field in (f for f in unchanged if f.note):
        say(f"  {field.field}: {field.note}")


def cmd_replay(args: argparse.Namespace) -> int:
    from ..diff import checked_replay

    with open_from_args(args) as store, StderrProgress(f"replay {args.thread}", args.quiet, unit="steps") as progress:
        keys = store.timeline_keys(args.thread)  # read once: for the profile's evidence and for the history
        cache = open_cache_for(store, args)
        try:
            checked = checked_replay(store, args.thread, args.ns, cache=cache, progress=progress, keys=keys)
        finally:
            if cache is not None:
                cache.close()
        schema = _schema_name(store, args.thread, checked.reading.name if checked.doubt else None)
    steps, result, chosen = checked.steps, checked.verdict, checked.chosen
    mismatched = [s for s in steps if s.status == "mismatch"]
    broken = [s for s in steps if s.status == "broken"]
    if args.json:
        print_json({"thread_id": args.thread, "checkpoint_ns": args.ns, "schema": schema,
                    "profile": chosen.as_json(), "doubt": checked.doubt.as_json() if checked.doubt else None,
                    "matches": result.matches, "broken_history": [s.note for s in broken], "verdict": result,
                    "steps": steps})
    else:  # print_json masks what it prints; a table's cells are built from the steps masked as records
        say(chosen.line())
        if checked.doubt:
            say(checked.doubt.summary())
        print_table(["step", "source", "checkpoint", "replay", "detail"], [_row(s) for s in masked(steps)],
                    prose=("detail",))
        say(f"{len(steps)} checkpoint(s), {len(mismatched)} replay mismatch(es)"
            + (f", {len(broken)} not replayed: broken history" if broken else ""))
        say(f"{result.summary()} (schema {schema})")
    return 0 if result.matches and not broken else 1


def _schema_name(store: Store, thread_id: str, named: str | None = None) -> str:
    """The name of the schema the thread is replayed in (read without loading it when it is DeerFlow's)."""
    from ..schema.default import active_schema_name

    with reading(store, thread_id, named=named):
        return active_schema_name()


def _row(step: StepReplay) -> tuple:
    return (step.step, step.source, step.checkpoint_id, step.status, step.detail())
