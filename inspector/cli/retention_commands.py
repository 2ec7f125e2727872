"""``prune-preview``: what a retention policy would delete, reclaim and break. Nothing is deleted."""

from __future__ import annotations

import argparse

from ..formatting import human_bytes
from ..retention import Policy, plan_store, statements
from ..retention.report import thread_rows, totals_line, variant_line
from .output import listed, masked_name, print_json, print_table, say
from .store_commands import add_store_args, open_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prune-preview", help="what a retention policy would delete, reclaim and break (never deletes)")
    add_store_args(p)
    p.add_argument("--keep-latest", type=int, metavar="N", help="keep the newest N checkpoints of each thread and namespace")
    p.add_argument("--older-than", type=float, metavar="DAYS", help="checkpoints created more than DAYS ago")
    p.add_argument("--inactive-for", type=float, metavar="DAYS", help="whole threads with no checkpoint for DAYS")
    p.add_argument("--threads", nargs="+", metavar="ID", help="only these threads (alone: delete them whole)")
    p.add_argument("--safe", action="store_true", help="also keep what the policy would break")
    p.add_argument("--sql", action="store_true",
                   help="print the statements that would apply the plan, for review (the inspector never runs them)")
    p.set_defaults(handler=cmd_prune_preview)


def policy_from_args(args: argparse.Namespace) -> Policy:
    return Policy(keep_latest=args.keep_latest, older_than_days=args.older_than, inactive_for_days=args.inactive_for,
                  threads=tuple(args.threads) if args.threads else None, safe=args.safe)


def cmd_prune_preview(args: argparse.Namespace) -> int:
    policy = policy_from_args(args)
    with open_from_args(args) as store:
        plan = plan_store(store, policy)
    if args.sql:
        print(statements(plan, masked_name), end="")  # a masked namespace written as its bytes
    elif args.json:
        print_json(plan.as_dict())
    else:
        print_table(["thread", "checkpoints", "writes", "bytes", "kept", "breaks"],
                    [(r["thread"], r["checkpoints"], r["writes"], human_bytes(r["bytes"]),
                      "none (whole thread)" if r["whole thread"] else r["kept"], r["breaks"] or "")
                     for r in thread_rows(plan)])
        for thread in plan.threads:
            for item in thread.breaks:
                say(f"breaks [{listed(thread.thread_id)}]: {item.message}")
            for item in thread.protected:
                say(f"kept [{listed(thread.thread_id)}]: {item.message}")
        say(totals_line(plan))
        say(variant_line(plan))
        for note in plan.notes:
            say(f"note: {note}")
        say("Nothing was deleted: this is a preview. --sql prints the statements that would apply it.")
    return 0
