"""Commands for operating a large store: ``growth`` (how fast it grows, when it passes the disk budget),
``health --store`` (what the files hold, the rows no checkpoint needs) and ``metrics`` (the same
numbers for Prometheus)."""

from __future__ import annotations

import argparse
import ipaddress
import math
import sys

from ..formatting import human_bytes
from ..operations.file_report import fact_lines, relation_rows
from ..operations.growth import BUCKETS, growth_report, growth_table
from ..operations.growth_summaries import wait_for_fills
from ..operations.orphans import orphan_report
from ..settings import load_settings
from ..store.not_utf8 import quoted
from ..store_ops import operating
from .output import listed, print_json, print_table, say, warn
from .store_commands import add_store_args, open_cache_for, open_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("growth", help="stored bytes per day or hour, top growers, and when the store passes "
                                      "disk_budget_bytes")
    add_store_args(p)
    p.add_argument("--since", type=int, default=30, metavar="DAYS", help="the window, in days (default 30)")
    p.add_argument("--by", choices=("store", "channel", "thread"), default="store",
                   help="one row per bucket (store), or per bucket and channel, or per bucket and thread (the --top threads)")
    p.add_argument("--bucket", choices=tuple(BUCKETS), default="day", help="the width of a row (default day, UTC)")
    p.add_argument("--top", type=int, default=10, metavar="N", help="how many top threads and channels (default 10)")
    p.add_argument("--budget", type=int, metavar="BYTES",
                   help="the disk budget to forecast against (default: the disk_budget_bytes setting)")
    p.set_defaults(handler=cmd_growth)

    p = sub.add_parser("delta-what-if", help="what a thread (its root graph and subgraphs) would store with messages "
                                             "as LangGraph's DeltaChannel, per snapshot frequency, and the writes a "
                                             "read would replay")
    add_store_args(p)
    p.add_argument("thread", nargs="?", help="a thread id (default: the store's largest threads, "
                                             "health_top_threads of them)")
    p.add_argument("--frequency", type=int, action="append", metavar="N",
                   help="a snapshot frequency (repeat it; default 1, 5, 10, 25, 100)")
    p.add_argument("--channel", default="messages", help="the channel priced as a DeltaChannel (default messages)")
    p.set_defaults(handler=cmd_delta_what_if)

    p = sub.add_parser("metrics", help="serve Prometheus metrics of the store (cheap aggregates, cached)")
    add_store_args(p)
    p.add_argument("--port", type=int, default=9464, help="the port to serve /metrics on (default 9464)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--cache-seconds", type=float, default=60.0, metavar="SECONDS",
                   help="a scrape within this many seconds of the last snapshot is served from it (default 60)")
    p.add_argument("--once", action="store_true", help="print one snapshot (a table, or with --json) and exit")
    p.set_defaults(handler=cmd_metrics)


def cmd_growth(args: argparse.Namespace) -> int:
    settings = load_settings()
    budget = args.budget if args.budget is not None else settings.disk_budget_bytes
    if args.budget is not None and args.budget <= 0:  # else the forecast would say no budget was set
        raise ValueError(f"--budget must be a positive number of bytes, got {args.budget}")
    with open_from_args(args) as store:
        cache = open_cache_for(store, args)  # each thread's day rows: the next run reads only the threads written since
        try:
            print_growth(growth_report(store, args.by, args.bucket, args.since, args.top, budget, cache=cache), args)
            wait_for_fills()  # a cache the report filled is written before the store and the cache are closed
        finally:
            if cache is not None:
                cache.close()
    return 0


def print_growth(report, args: argparse.Namespace) -> None:
    if args.json:
        print_json(report, keys=False)
        return
    rows = growth_table(report)
    shown = [r for r in rows if r["stored bytes"] or r["checkpoints"]]  # LangGraph's branch:to:* writes hold 0 B
    print_table(None, shown, formats={"stored bytes": human_bytes})
    if len(shown) < len(rows):
        say(f"{len(rows) - len(shown)} row(s) of 0 B and no checkpoint left out (--json lists them)")
    if not report.points:
        say(f"no checkpoint dated since {report.window_start:%Y-%m-%d %H:%M} UTC")
    for title, growers in (("threads", report.top_threads), ("channels", report.top_channels)):
        say(f"top {title} in the last {report.since_days} day(s):")
        print_table(["key", "stored", "share", "checkpoints"],
                    [(g.key, human_bytes(g.bytes), f"{g.share:.0%}", g.checkpoints) for g in growers])
    if report.channel_basis:
        say(f"per channel: {report.channel_basis}")
    if report.untimed_checkpoints or report.untimed_bytes:
        say(f"not dated (ids that are not uuid6, blobs no checkpoint names): {report.untimed_checkpoints} "
            f"checkpoint(s), {human_bytes(report.untimed_bytes)}")
    say(f"forecast: {report.forecast.verdict}")
    say(f"basis: {report.forecast.basis}")


def print_store_health(store, as_json: bool) -> int:
    """``health --store``: file facts, then each kind of leftover with its statements (exit 0)."""
    facts = operating(store).file_facts()
    orphans = orphan_report(store)
    if as_json:
        print_json({"file_facts": facts, "orphans": orphans}, keys=False)
        return 0
    for line in fact_lines(facts):
        say(line)
    print_table(None, relation_rows(facts), formats=dict.fromkeys(("bytes", "payload", "heap", "toast", "indexes"),
                                                                   human_bytes))
    say(f"rows no checkpoint needs: {human_bytes(orphans.total_bytes)}"
        + (f"; app thread tables: {', '.join(f'{app} {table}' for app, table in orphans.app_tables)}"
           if orphans.app_tables else "; no app thread table found"))
    for item in orphans.leftovers:
        say(f"{item.title}: {item.rows:,} row(s), {human_bytes(item.bytes)} in {item.thread_count:,} thread(s)")
        if not item.rows:
            continue
        for thread in item.threads[:10]:
            say(f"    {listed(thread.thread_id, thread.blob)}: {thread.rows:,} row(s), "
                f"{human_bytes(thread.bytes)}"
                + (" (every checkpoint gone)" if thread.gone else ""))
        say(f"    caution: {item.caution}")
        for line in item.statements.splitlines():
            say(f"    {line}")
    return 0


def exposure_warning(host: str) -> str | None:
    """A warning when ``host`` is not this machine's loopback: every machine that reaches it can read the
    store's sizes, thread counts and growth (no values, but an operator's numbers all the same)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return None
    try:
        if ipaddress.ip_address(name).is_loopback:
            return None
    except ValueError:
        pass
    return (f"warning: --host {host} is not loopback: any machine that can reach it can read these metrics "
            "(store sizes, thread counts, growth); put it behind a firewall or a reverse proxy with authentication")


def cmd_metrics(args: argparse.Namespace) -> int:
    import time

    from ..operations.metrics import metrics_snapshot

    settings = load_settings()
    if args.port <= 0 or args.port > 65535:
        raise ValueError(f"--port must be between 1 and 65535, got {args.port}")
    if not math.isfinite(args.cache_seconds) or args.cache_seconds <= 0:
        raise ValueError(f"--cache-seconds must be a positive number of seconds, got {args.cache_seconds:g}")
    exposed = exposure_warning(args.host)
    if exposed and not args.once:
        warn(exposed)
    with open_from_args(args) as store:
        def take():
            return metrics_snapshot(store, settings.oversize_state_bytes, settings.disk_budget_bytes)

        if args.once:
            snap = take()
            if args.json:
                print_json(snap, keys=False)
            else:
                print_table(["metric", "value"], snapshot_rows(snap))
                say(f"table bytes: {snap.table_basis}")
                say(f"forecast: {snap.forecast_basis}")
            return 0
        from ..operations.metrics_server import SnapshotCollector, serve

        try:
            server = serve(SnapshotCollector(take, args.cache_seconds, lambda text: warn(f"warning: {text}")),
                           args.host, args.port)
        except OSError as exc:
            raise ValueError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
        say(f"serving Prometheus metrics on http://{args.host}:{args.port}/metrics (Ctrl-C stops)")
        sys.stdout.flush()
        try:
            while True:
                time.sleep(3600)
        finally:
            server.shutdown()


def share(part: float) -> str:
    """A share as a whole percent, or to a tenth below 1% (never "-0%")."""
    return f"{part:.0%}" if abs(part) >= 0.01 or part == 0 else f"{part:.1%}"


def snapshot_rows(snap) -> list[tuple[str, str]]:
    """A metrics snapshot as a person reads it: a time, bytes in units with the exact count, the bases apart."""
    from datetime import datetime, timezone

    def value(name: str, v) -> str:
        if isinstance(v, dict):
            return ", ".join(f"{k} {value(name, n)}" for k, n in v.items()) or "none"
        if name == "taken_at":
            return f"{datetime.fromtimestamp(v, tz=timezone.utc):%Y-%m-%d %H:%M:%S} UTC"
        if name == "seconds":
            return f"{v:.3f} s"
        if name == "disk_budget_bytes" and not v:
            return "none (setting disk_budget_bytes)"
        if name.endswith("bytes") and isinstance(v, int):
            return f"{human_bytes(v)} ({v:,})" if v >= 1000 else f"{v} B"
        if name == "forecast_days_left":
            return "no forecast (no disk budget, or no growth)" if v is None else f"{v:,.1f} days"
        return f"{v:,}" if isinstance(v, int) else str(v)

    return [(name, value(name, v)) for name, v in vars(snap).items() if name not in ("table_basis", "forecast_basis")]


def cmd_delta_what_if(args: argparse.Namespace) -> int:
    from ..sizes.delta_what_if import DEFAULT_FREQUENCIES, delta_what_if, store_delta_what_if

    frequencies = tuple(args.frequency or DEFAULT_FREQUENCIES)
    with open_from_args(args) as store:
        report = (delta_what_if(store, args.thread, frequencies, args.channel) if args.thread is not None else
                  store_delta_what_if(store, load_settings().health_top_threads, frequencies, args.channel))
    if args.thread is not None and not report.present:
        raise ValueError(f"thread {quoted(args.thread)} stores no channel {quoted(args.channel)} in its root graph or its "
                         "subgraphs: nothing to price (--channel names one of its fields, default messages)")
    if args.json:
        print_json(report, keys=False)
        return 0
    if args.thread is None:
        say(f"store: {human_bytes(report.store_bytes)} stored; measured {human_bytes(report.measured_bytes)}")
        print_table(["snapshot every", "would store", "saves", "max writes a read replays"],
                    [(o.frequency, human_bytes(o.stored_bytes), f"{human_bytes(o.saved_bytes)} ({share(o.saved_share)})",
                      o.max_replayed_writes) for o in report.options])
        say(f"basis: {report.basis}")
        return 0
    where = (f"{report.checkpoints} checkpoint(s) across the root graph and {report.subgraph_namespaces} subgraph "
             "namespace(s)" if report.subgraph_namespaces else f"{report.checkpoints} root checkpoint(s)")
    say(f"thread {report.thread_id}: {human_bytes(report.stored_bytes)} stored ({report.mode} mode), "
        f"{where}, {report.updates} updating {quoted(report.channel)}")
    print_table(["snapshot every", "would store", "saves", "snapshots", "max writes a read replays"],
                [(o.frequency, human_bytes(o.stored_bytes), f"{human_bytes(o.saved_bytes)} ({share(o.saved_share)})",
                  o.snapshots, o.max_replayed_writes) for o in report.options])
    say(f"basis: {report.basis}")
    return 0
