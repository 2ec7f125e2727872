"""``sizes`` and ``health``: what the state costs in the store, and the flags a thread raises.

``health`` exits 1 when any flag is raised, so it can run in a scheduled job.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..settings import load_settings
from ..sizes import StoreSizes, ThreadSizes, measure_store, measure_thread, store_sizes, what_if_lines
from ..units import human_bytes
from .output import print_json, print_table, say
from .progress import StderrProgress
from .store_commands import add_store_args, open_cache_for, open_from_args

if TYPE_CHECKING:
    from ..health import ThreadHealth


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sizes", help="stored bytes per field: one thread over its timeline, or the whole store")
    add_store_args(p)
    p.add_argument("thread", nargs="?", help="a thread id (default: every thread, ranked)")
    p.set_defaults(handler=cmd_sizes)

    p = sub.add_parser("health", help="oversize flags and lints; exits 1 when any flag is raised")
    add_store_args(p)
    p.add_argument("thread", nargs="?", help="a thread id (default: every thread)")
    p.set_defaults(handler=cmd_health)


def print_thread_sizes(report: ThreadSizes) -> None:
    say(f"thread {report.thread_id}: {human_bytes(report.stored_bytes)} stored ({report.accounting}), "
          f"{human_bytes(report.repeated_bytes)} on repeats; state {human_bytes(report.first_total_bytes)} -> "
          f"{human_bytes(report.last_total_bytes)} (growth {human_bytes(report.growth_bytes)})")
    print_table(
        ["field", "stored", "unique", "repeats", "newest"],
        [(f.field, human_bytes(f.stored_bytes), human_bytes(f.unique_bytes), human_bytes(f.repeated_bytes),
          human_bytes(f.newest_bytes)) for f in report.fields if not f.internal],
    )
    for line in what_if_lines(report.what_if.keep_newest, report.what_if.keep_newest_saved_bytes,
                              report.what_if.viewed_images_repeated_bytes, report.what_if.base64_in_messages_bytes):
        say(line)


def print_store_sizes(report: StoreSizes, keep: int) -> None:
    say(f"{report.ranked_threads} thread(s) ranked, {human_bytes(report.store_bytes)} stored ({report.accounting}); "
        f"the largest {len(report.threads)} measured in depth: {human_bytes(report.stored_bytes)}, "
        f"{human_bytes(report.repeated_bytes)} on repeats")
    print_table(
        ["thread", "stored", "repeats", "checkpoints", "newest state"],
        [(t.thread_id, human_bytes(t.stored_bytes), human_bytes(t.repeated_bytes), len(t.checkpoints),
          human_bytes(t.last_total_bytes)) for t in report.threads],
    )
    print_table(["field", "stored"], [(name, human_bytes(n)) for name, n in report.fields.items()])
    for line in what_if_lines(keep, report.keep_newest_saved_bytes, report.viewed_images_repeated_bytes,
                              report.base64_in_messages_bytes):
        say(line)


def cmd_sizes(args: argparse.Namespace) -> int:
    settings = load_settings()
    keep = settings.what_if_keep_newest
    with open_from_args(args) as store, StderrProgress(f"sizes {args.thread or 'store'}", args.quiet) as progress:
        cache = open_cache_for(store, args)
        try:
            if args.thread:
                report = measure_thread(store, args.thread, keep, cache, progress)
            else:
                report = measure_store(store, keep, settings.health_top_threads, cache, progress)
        finally:
            if cache is not None:
                cache.close()
    if args.json:
        print_json(report, keys=False)
    elif args.thread:
        print_thread_sizes(report)
    else:
        print_store_sizes(report, keep)
    return 0


def health_payload(reports: list[ThreadHealth], settings: Any) -> dict[str, Any]:
    from ..health import health_settings_note
    from ..schema_default import active_schema_name

    summary = store_sizes([r.sizes for r in reports], reports[0].sizes.accounting if reports else "")
    return {
        "thresholds": health_settings_note(settings),
        "schema": active_schema_name(),
        "flag_count": sum(len(r.flags) for r in reports),
        "threads": [
            {"thread_id": r.thread_id, "stored_bytes": r.sizes.stored_bytes,
             "newest_state_bytes": r.sizes.last_total_bytes, "flags": r.flags, "schema_drift": r.schema_drift}
            for r in reports
        ],
        "fields": summary.fields,
    }


def cmd_health(args: argparse.Namespace) -> int:
    from ..drift import drift_lines
    from ..health import store_health, thread_health

    settings = load_settings()
    with open_from_args(args) as store, StderrProgress(f"health {args.thread or 'store'}", args.quiet) as progress:
        cache = open_cache_for(store, args)
        try:
            reports = ([thread_health(store, args.thread, settings, cache, progress)] if args.thread
                       else store_health(store, settings, settings.health_top_threads, cache, progress))
        finally:
            if cache is not None:
                cache.close()
    flagged = sum(len(r.flags) for r in reports)
    if args.json:
        print_json(health_payload(reports, settings), keys=False)
        return 1 if flagged else 0
    for report in reports:
        for flag in report.flags:
            where = f"{flag.field} " if flag.field else ""
            say(f"{report.thread_id}: [{flag.code}] {where}{flag.summary}")
            say(f"    checkpoints: {', '.join(flag.checkpoint_ids[:3])}"
                  + (f" (+{len(flag.checkpoint_ids) - 3} more)" if len(flag.checkpoint_ids) > 3 else ""))
            say(f"    why: {flag.why}")
            say(f"    fix: {flag.fix}")
        for line in drift_lines(report.schema_drift, unwritten=bool(args.thread)):
            say(f"{report.thread_id}: schema drift: {line}")
    say(f"{flagged} flag(s) in {sum(1 for r in reports if r.flags)} of {len(reports)} thread(s)")
    return 1 if flagged else 0
