"""``bundle``: one thread, its files and a manifest in a zip that ``--db FILE.zip`` opens elsewhere."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..settings import DATA_DIR_HELP, load_settings
from ..store.not_utf8 import quoted
from .output import print_json, say
from .store_commands import THREAD_HELP, add_store_args, open_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bundle", help="export one thread as a support bundle (secrets masked inside it)")
    add_store_args(p)
    p.add_argument("thread", help=THREAD_HELP)
    p.add_argument("--out", required=True, metavar="FILE.zip", help="where to write the bundle")
    p.add_argument("--data-dir", metavar="DIR", help=DATA_DIR_HELP)
    p.add_argument("--by", metavar="NAME", help="who makes the bundle, for its manifest (default: the OS user)")
    p.set_defaults(handler=cmd_bundle)


def cmd_bundle(args: argparse.Namespace) -> int:
    if not args.out.lower().endswith(".zip"):
        raise ValueError(f"--out must name a .zip file, got {quoted(args.out)}")
    out = Path(args.out).expanduser()
    try:
        _check_out(args, out)
    except OSError as exc:  # a name the file system refuses (too long, ...): bad input
        raise _out_refused(exc, args.out, out.parent) from None
    from ..bundle import write_bundle  # LangGraph's SqliteSaver, and its graph machinery: only here

    settings = load_settings()
    with open_from_args(args) as store:
        try:
            manifest = write_bundle(store, args.thread, out, data_dir=args.data_dir or settings.data_dir,
                                    reveal=args.reveal, created_by=args.by, settings=settings)
        except OSError as exc:  # the file --out names (or its .building neighbour) cannot be written: bad input
            raise _out_refused(exc, args.out, out) from None
    return _print_bundle(args, manifest)


def _out_refused(exc: OSError, given: str, under: Path) -> Exception:
    """What to raise for ``exc``: a file system's refusal of a name at or below ``under`` (the path ``--out``
    names) is bad input, one line naming ``given``; any other error is itself."""
    if exc.filename is None or not str(exc.filename).startswith(str(under)):
        return exc
    return ValueError(f"--out: cannot write the bundle to {quoted(given)}: {exc.strerror or exc}")


def _check_out(args: argparse.Namespace, out: Path) -> None:
    if out.is_dir():
        raise ValueError(f"--out names a folder, not a file: {quoted(args.out)}")
    if not out.parent.is_dir():
        raise ValueError(f"--out: there is no folder {quoted(str(out.parent))} to write the bundle into")
    if args.db and out.exists() and _same_file(out, Path(args.db).expanduser()):
        raise ValueError(f"--out is the store being read: {quoted(args.out)}")


def _same_file(out: Path, db: Path) -> bool:
    try:
        return db.exists() and out.samefile(db)
    except OSError:  # a --db no file system can name: not this file (opening it says what is wrong)
        return False


def _print_bundle(args: argparse.Namespace, manifest) -> int:
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
