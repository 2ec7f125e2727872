"""``delta-chains``: where each delta channel's value comes from at every checkpoint of a thread, and the lints of
its chains (the Size panel's "Delta channels" table)."""

from __future__ import annotations

import argparse

from ..sizes.delta_chains import delta_chains
from .output import print_json, print_table, say
from .store_commands import add_store_args, open_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("delta-chains", help="where each delta channel's value comes from at every checkpoint "
                                            "(snapshot, full value, seed plus replayed writes, or cannot be rebuilt), "
                                            "and the chains' lints; exits 1 when a lint is raised")
    add_store_args(p)
    p.add_argument("thread", help="thread id")
    p.add_argument("--ns", default="", help="checkpoint namespace (default: the root graph)")
    p.set_defaults(handler=cmd_delta_chains)


def cmd_delta_chains(args: argparse.Namespace) -> int:
    with open_from_args(args) as store:
        report = delta_chains(store, args.thread, args.ns)
    if args.json:
        print_json(report, keys=False)
        return 1 if report.lints else 0
    if not report.rows:
        say(f"thread {args.thread}: no delta channel (every field stores its whole value)")
        return 0
    say(f"thread {args.thread}: delta channel(s) {', '.join(report.channels)}; snapshot frequency "
        + ", ".join(f"{name} {report.frequencies[name]}" for name in report.channels))
    print_table(["step", "field", "form", "replayed", "source", "checkpoint"],
                [(r.step, r.channel, r.form, r.replayed, r.source, r.checkpoint_id) for r in reversed(report.rows)])
    for lint in report.lints:
        say(f"lint [{lint.kind}] {lint.message}")
    return 1 if report.lints else 0
