"""``images``, ``artifacts`` and ``uploads``: what the state's pictures, presented and uploaded files are, and what
is wrong with them."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..formatting import human_bytes
from ..settings import DATA_DIR_HELP, load_settings
from .output import listed, print_json, print_table, say
from .store_commands import THREAD_HELP, add_store_args, open_cache_for, open_from_args

if TYPE_CHECKING:
    from ..profiles.media_report import MediaReport


def _add_args(parser: argparse.ArgumentParser) -> None:
    add_store_args(parser)
    parser.add_argument("thread", help=THREAD_HELP)
    parser.add_argument("--checkpoint", metavar="ID", help="checkpoint id (default: the newest)")
    parser.add_argument("--ns", default="", help="checkpoint namespace (default: the root graph)")
    parser.add_argument("--data-dir", metavar="DIR", help=DATA_DIR_HELP)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("images", help="check viewed_images at a checkpoint, and their history")
    _add_args(p)
    p.set_defaults(handler=cmd_images)
    p = sub.add_parser("artifacts", help="locate and check the presented artifacts at a checkpoint")
    _add_args(p)
    p.set_defaults(handler=cmd_artifacts)
    p = sub.add_parser("uploads", help="locate and check the files the user uploaded, as a checkpoint names them")
    _add_args(p)
    p.set_defaults(handler=cmd_uploads)


def _report(args: argparse.Namespace, **which: bool) -> MediaReport:
    from ..profiles.media_report import media_report  # Pillow and the image checks: only for these commands

    data_dir = args.data_dir or load_settings().data_dir
    with open_from_args(args) as store:
        cache = open_cache_for(store, args) if which.get("images") else None  # image facts only
        try:
            return media_report(store, args.thread, args.checkpoint, data_dir, cache=cache, ns=args.ns, **which)
        finally:
            if cache is not None:
                cache.close()


def _header(report: MediaReport) -> None:
    say(f"thread {report.thread_id}  checkpoint {report.checkpoint_id}  ns {report.checkpoint_ns or '(root)'}  "
        f"step {report.step}")
    if report.user_data is not None:
        say(f"user-data folder: {report.user_data.origin}")
        for parent in report.user_data.parents:
            say(f"branched from {listed(parent.thread_id)}: its folder {parent.origin} is read for actual_paths too")
    for problem in report.problems:
        say(f"problem: {problem}")


def _media(args: argparse.Namespace, *, images: bool) -> MediaReport | None:
    """The images' (or the artifacts') report, printed: its header, their table and count; None once printed
    as JSON (``--json``)."""
    report = _report(args, images=images, artifacts=not images)
    if args.json:
        print_json(report.as_dict(artifacts=False) if images else report.as_dict(images=False))
        return None
    from ..profiles.media_report import artifact_rows, image_rows

    _header(report)
    items, rows, noun = (report.images, image_rows, "image") if images else (report.artifacts, artifact_rows, "artifact")
    print_table(None, rows(items), formats={"bytes": human_bytes}, prose=("problems",))
    say(f"{len(items)} {noun}(s) at this checkpoint")
    return report


def cmd_images(args: argparse.Namespace) -> int:
    report = _media(args, images=True)
    if report is None:
        return 0
    from ..profiles.media_report import lifecycle_note, span_rows

    say("history:")
    print_table(None, span_rows(report.spans))

    if note := lifecycle_note(report.spans):
        say(note)
    return 0


def cmd_artifacts(args: argparse.Namespace) -> int:
    _media(args, images=False)
    return 0


def cmd_uploads(args: argparse.Namespace) -> int:
    report = _report(args, images=False, artifacts=True)
    if args.json:
        data = report.as_dict(images=False)
        data.pop("artifacts")
        print_json(data)
        return 0
    from ..profiles.media_report import upload_rows

    _header(report)
    print_table(None, upload_rows(report.uploads), formats={"bytes": human_bytes}, prose=("problems",))
    say(f"{len(report.uploads)} uploaded file(s) at this checkpoint")
    return 0
