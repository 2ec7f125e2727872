"""``memory``: LangGraph's long-term memory store, as the Memory page shows it: the namespace tree with counts and
bytes, the items of a namespace, one item whole (masked), growth per day."""

from __future__ import annotations

import argparse
from datetime import datetime, timezone

from ..formatting import human_bytes
from ..memory import ITEM_SORTS, MemoryReader, namespace_of, open_memory
from ..memory.report import GROWTH_NOTE, growth_rows, item_payload, item_rows, layout_line, summary_line, vector_text
from ..memory.times import time_text
from ..memory.tree import TREE_ROWS, build_tree, find, indented, totals, tree_rows
from ..safety.audit import AuditTrail
from ..settings import load_settings
from ..store import StoreError, display_url
from ..store.apps import deerflow_url
from ..store.model import NotFound
from ..store.not_utf8 import from_token, quoted
from ..store_url import resolve_db_url
from .output import print_json, print_table, say
from .store_commands import _cli_user as cli_user
from .store_commands import audit

NAMESPACE_HELP = ("a namespace as LangGraph stores it, its labels joined by '.' (users.alice.memories; "
                  "~bytes:<hex> for one that is not UTF-8)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("memory", help="LangGraph's long-term memory store: namespaces, items, TTLs, growth")
    p.add_argument("--db", metavar="URL",
                   help="the database holding the memory store (default: memory_db setting, INSPECTOR_MEMORY_DB, "
                        "then the checkpoint store's URL)")
    p.add_argument("--deerflow-home", metavar="DIR", help="read DeerFlow's .deer-flow/data/deerflow.db under DIR")
    p.add_argument("--namespace", metavar="NS", help=f"show this namespace: its part of the tree and its items; "
                                                     f"{NAMESPACE_HELP}")
    p.add_argument("--item", metavar="KEY", help="show this item of --namespace whole: value (masked), times, TTL, "
                                                 "vector rows, the threads it names")
    p.add_argument("--growth", action="store_true", help="items per day of creation and of update")
    p.add_argument("--sort", choices=ITEM_SORTS, default="key", help="order of a namespace's items (default key)")
    p.add_argument("--limit", type=int, default=100, metavar="N",
                   help=f"items listed (default 100, at most 1,000); tree rows at most max(N, {TREE_ROWS})")
    p.add_argument("--offset", type=int, default=0, metavar="N", help="skip the first N items (default 0)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--reveal", action="store_true",
                   help="show secrets unmasked (only where the operator set allow_reveal)")
    p.set_defaults(handler=cmd_memory)


def memory_url(explicit: str | None, deerflow_home: str | None = None) -> str:
    """The database to read memory from: the flag, DeerFlow's home, the memory_db setting, the checkpoint store."""
    settings = load_settings()
    if not explicit and deerflow_home:
        explicit = deerflow_url(deerflow_home)
    return explicit or settings.memory_db or resolve_db_url(None, settings)


def cmd_memory(args: argparse.Namespace) -> int:
    for flag, value in (("--limit", args.limit), ("--offset", args.offset)):
        if value < 0:
            raise ValueError(f"{flag} must be 0 or more, got {value}")
    if args.item is not None and args.namespace is None:
        raise ValueError("--item needs --namespace (the item's namespace)")
    url = memory_url(args.db, args.deerflow_home)
    settings = load_settings()
    audit(args, url, settings)  # a --reveal
    now = datetime.now(timezone.utc)
    with open_memory(url, settings.pg_statement_timeout_ms) as reader:
        if not reader.present:
            raise StoreError(f"{display_url(url)} holds no LangGraph memory store (no table store); "
                             "name its database with --db or the memory_db setting")
        prefix = from_token(args.namespace) if args.namespace is not None else None
        if args.item is not None:
            if settings.audit_log:
                AuditTrail(settings.audit_log, cli_user(), url).record(
                    "memory_view", via="cli", namespace=prefix, key=from_token(args.item))
            return _item(reader, prefix, from_token(args.item), now, args.json)
        if args.growth:
            return _growth(reader, args.json)
        return _tree(reader, prefix, now, args)


def _tree(reader: MemoryReader, prefix: str | None, now: datetime, args: argparse.Namespace) -> int:
    root = build_tree(reader.namespaces(now))
    path = namespace_of(prefix) if prefix is not None else ()
    node = find(root, path)
    if node is None:
        raise NotFound(f"no namespace {quoted(prefix or '')} in the memory store at {reader.where}")
    laid = tree_rows(root, path, max(args.limit, TREE_ROWS))
    items = reader.items(prefix, args.limit, args.offset, args.sort) if prefix is not None else []
    if args.json:
        print_json({"store": reader.where, "layout": layout_line(reader), "totals": totals(root),
                    "namespace": list(path) if prefix is not None else None,
                    "here": {"items": node.items, "bytes": node.bytes, "items here": node.own_items},
                    "namespaces": laid.rows, "left_out": laid.left_out,
                    "items": item_rows(items, now) if prefix is not None else None})
        return 0
    say(f"memory store at {reader.where} ({layout_line(reader)})")
    say(summary_line(totals(root)))
    if prefix is not None:
        say(f"namespace {quoted(prefix)}: {node.items:,} item(s), {human_bytes(node.bytes)} at and below it; "
            f"{node.own_items:,} stored in it")
    if laid.rows:
        print_table(["namespace", "items", "bytes", "here", "with TTL", "expired", "vectors", "newest update"],
                    [(indented(r["label"], r["depth"]), r["items"], human_bytes(r["bytes"]), r["items here"],
                      r["with TTL"], r["expired"], r["vector rows"], time_text(r["newest update"]))
                     for r in laid.rows])
    if laid.left_out:
        say(f"and {laid.left_out:,} more namespace(s) below: --namespace names one to see its part of the tree")
    if prefix is not None:
        _items_table(items, node.own_items, now, args.offset)
    return 0


def _items_table(items: list, stored: int, now: datetime, offset: int) -> None:
    if not items:
        say(f"no item listed (offset {offset:,} of {stored:,} stored in this namespace)" if stored
            else "no item is stored in this namespace itself")
        return
    print_table(["key", "bytes", "updated", "expiry", "vector rows", "problems"],
                item_rows(items, now), formats={"bytes": human_bytes})
    say(f"items {offset + 1:,}-{offset + len(items):,} of {stored:,} stored in this namespace")


def _item(reader: MemoryReader, prefix: str, key: str, now: datetime, as_json: bool) -> int:
    item = reader.item(prefix, key)
    if item is None:
        raise NotFound(f"no item {quoted(key)} in namespace {quoted(prefix)}")
    payload = item_payload(item, now)
    if as_json:
        print_json(payload)
        return 0
    row = item.row
    print_table(["what", "value"], [
        ("namespace", prefix), ("key", key), ("stored", f"{human_bytes(row.bytes)} ({item.raw_chars:,} characters)"),
        ("created", time_text(row.created_at)), ("updated", time_text(row.updated_at)), ("expiry", payload["expiry"]),
        ("vectors", vector_text(item) or "none"), ("threads", ", ".join(item.threads) or "none named"),
    ])
    for problem in item.problems:
        say(f"problem: {problem}")
    if item.value is not None:
        print_json(item.value)
    return 0


def _growth(reader: MemoryReader, as_json: bool) -> int:
    rows = growth_rows(reader.growth())
    if as_json:
        print_json({"store": reader.where, "days": rows, "note": GROWTH_NOTE})
        return 0
    print_table(["day", "created", "bytes", "updated", "items so far"], rows, formats={"bytes": human_bytes})
    say(GROWTH_NOTE)
    return 0
