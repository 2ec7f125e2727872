"""``sizes`` and ``health``: what the state costs in the store, and the flags a thread raises.

``health`` exits 1 when any flag is raised, so it can run in a scheduled job.
"""

from __future__ import annotations

import argparse
from contextlib import nullcontext

from ..formatting import human_bytes
from ..profiles import reading
from ..settings import load_settings
from ..sizes.accounting import ThreadSizes, measure_thread
from ..sizes.store_sizes import StoreSizes, app_fields, measure_store
from ..sizes.tables import FIELD_BYTES, field_rows, rebuilt_note
from ..sizes.what_if import what_if_lines
from .output import listed, print_json, print_table, say
from .progress import StderrProgress
from .store_commands import add_store_args, open_cache_for, open_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sizes", help="stored bytes per field: one thread over its timeline, or the whole store")
    add_store_args(p)
    p.add_argument("thread", nargs="?", help="a thread id (default: every thread, ranked)")
    p.set_defaults(handler=cmd_sizes)

    p = sub.add_parser("health", help="oversize flags and lints; exits 1 when any flag is raised")
    add_store_args(p)
    p.add_argument("thread", nargs="?", help="a thread id (default: every thread)")
    p.add_argument("--store", action="store_true",
                   help="the store itself instead: what its files hold and the rows no checkpoint needs")
    p.set_defaults(handler=cmd_health)


def print_thread_sizes(report: ThreadSizes) -> None:
    say(f"thread {report.thread_id}: {human_bytes(report.stored_bytes)} stored ({report.accounting}), "
          f"{human_bytes(report.repeated_bytes)} on repeats; state {human_bytes(report.first_total_bytes)} -> "
          f"{human_bytes(report.last_total_bytes)} (growth {human_bytes(report.growth_bytes)})")
    print_table(["field", *FIELD_BYTES], field_rows(report, internal=False),
                formats=dict.fromkeys(FIELD_BYTES, human_bytes))
    if note := rebuilt_note(report):
        say(note)
    for problem in report.problems:  # a corrupt blob, an undecodable value: its sizes are what could be read
        say(f"problem: {problem}")
    for line in what_if_lines(report.what_if):
        say(line)


def print_store_sizes(report: StoreSizes) -> None:
    say(f"{report.ranked_threads} thread(s) ranked, {human_bytes(report.store_bytes)} stored ({report.accounting}); "
        f"the largest {len(report.threads)} measured in depth: {human_bytes(report.stored_bytes)}, "
        f"{human_bytes(report.repeated_bytes)} on repeats")
    print_table(
        ["thread", "stored", "repeats", "checkpoints", "newest state"],
        [(t.thread_id, human_bytes(t.stored_bytes), human_bytes(t.repeated_bytes), len(t.checkpoints),
          human_bytes(t.last_total_bytes)) for t in report.threads],
    )
    fields, internal = app_fields(report)
    print_table(["field", "stored"], [(name, human_bytes(n)) for name, n in fields.items()])
    if internal:
        say(f"LangGraph's own channels (__start__, branch:to:*, __pregel_tasks, ...): {human_bytes(internal)}, "
            "not in the field table")
    for line in what_if_lines(report.what_if):
        say(line)


def cmd_sizes(args: argparse.Namespace) -> int:
    settings = load_settings()
    keep = settings.what_if_keep_newest
    one = args.thread is not None  # a thread named, even as "" (an id the store may not hold): not the whole store
    with open_from_args(args) as store, StderrProgress(f"sizes {args.thread if one else 'store'}", args.quiet) as progress:
        cache = open_cache_for(store, args)
        try:
            with reading(store, args.thread, cache=cache) if one else nullcontext():
                if one:
                    report = measure_thread(store, args.thread, keep, cache, progress)
                else:
                    report = measure_store(store, keep, settings.health_top_threads, cache, progress)
                if args.json:
                    print_json(report, keys=False)
                elif one:
                    print_thread_sizes(report)
                else:
                    print_store_sizes(report)
        finally:
            if cache is not None:
                cache.close()
    return 0


def cmd_health(args: argparse.Namespace) -> int:
    if args.store:
        from .operations_commands import print_store_health

        if args.thread is not None:
            raise ValueError("health --store reads the whole store: name no thread (health THREAD reads one)")

        with open_from_args(args) as store:
            return print_store_health(store, args.json)
    from ..sizes.health import store_health, thread_health
    from ..sizes.health_report import health_report, health_table
    from ..state.drift import drift_lines

    settings = load_settings()
    one = args.thread is not None  # a thread named, even as "": not the whole store
    with open_from_args(args) as store, StderrProgress(f"health {args.thread if one else 'store'}", args.quiet) as progress:
        cache = open_cache_for(store, args)
        try:
            reports = ([thread_health(store, args.thread, settings, cache, progress)] if one
                       else store_health(store, settings, settings.health_top_threads, cache, progress))
        finally:
            if cache is not None:
                cache.close()
    report = health_report(reports, settings)
    flagged = report.flag_count
    if args.json:
        print_json(report.as_dict(), keys=False)
        return 1 if flagged else 0
    print_table(None, health_table(report.threads),
                formats={"stored bytes": human_bytes, "newest state": human_bytes, "repeats": human_bytes})
    for row in report.threads:
        for flag in row.flags:
            where = f"{flag.field} " if flag.field else ""
            say(f"{listed(row.thread_id)}: [{flag.code}] {where}{flag.summary}")
            say(f"    checkpoints: {', '.join(flag.checkpoint_ids[:3])}"
                  + (f" (+{len(flag.checkpoint_ids) - 3} more)" if len(flag.checkpoint_ids) > 3 else ""))
            say(f"    why: {flag.why}")
            say(f"    fix: {flag.fix}")
        for line in drift_lines(row.schema_drift, unwritten=one):
            say(f"{listed(row.thread_id)}: schema drift: {line}")
    say(f"{flagged} flag(s) in {report.flagged_threads} of {len(report.threads)} thread(s)")
    return 1 if flagged else 0
