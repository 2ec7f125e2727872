"""``bundle``: one thread, its files and a manifest in a zip that ``--db FILE.zip`` opens elsewhere."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..settings import load_settings
from .output import print_json, say
from .store_commands import THREAD_HELP, add_store_args, open_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bundle", help="export one thread as a support bundle (secrets masked inside it)")
    add_store_args(p)
    p.add_argument("thread", help=THREAD_HELP)
    p.add_argument("--out", required=True, metavar="FILE.zip", help="where to write the bundle")
    p.add_argument("--data-dir", metavar="DIR",
                   help="DeerFlow's data folder holding threads/ (default: INSPECTOR_DATA_DIR, settings, "
                        "or the SQLite store's folder)")
    p.add_argument("--by", metavar="NAME", help="who makes the bundle, for its manifest (default: the OS user)")
    p.set_defaults(handler=cmd_bundle)


def cmd_bundle(args: argparse.Namespace) -> int:
    if not args.out.lower().endswith(".zip"):
        raise ValueError(f"--out must name a .zip file, got {args.out!r}")
    out = Path(args.out).expanduser()
    if out.is_dir():
        raise ValueError(f"--out names a folder, not a file: {args.out!r}")
    if not out.parent.is_dir():
        raise ValueError(f"--out: there is no folder {str(out.parent)!r} to write the bundle into")
    if args.db and out.exists() and Path(args.db).expanduser().exists() and out.samefile(Path(args.db).expanduser()):
        raise ValueError(f"--out is the store being read: {args.out!r}")
    from ..bundle import write_bundle  # LangGraph's SqliteSaver, and its graph machinery: only here

    settings = load_settings()
    with open_from_args(args) as store:
        manifest = write_bundle(store, args.thread, args.out, data_dir=args.data_dir or settings.data_dir,
                                reveal=args.reveal, created_by=args.by, settings=settings)
    if args.json:
        print_json(manifest)
        return 0
    from ..bundle.summary import summarize

    summary = summarize(manifest)
    say(f"bundle of {summary.thread_id} written to {args.out}:")
    for line in summary.lines():
        say(f"  {line}")
    for item in summary.files:
        named = f", named by {item['named_by']}" if item["named_by"] else ""
        say(f"file: {item['path']} ({item['bytes']:,} bytes{named}{', masked' if item['masked'] else ''})")
    for item in summary.left_out:
        say(f"left out: {item['what']} ({item['count']}): {item['reason']}")
    say(f"open it with: python -m inspector threads --db {args.out}")
    return 0
