"""``python -m inspector``: the dashboard's questions answered on the command line.

Each command module adds its sub-commands through ``register(subparsers)``; a
command returns an exit code. Bad input (an unknown store, thread or checkpoint)
exits 2 with one line on stderr, never a traceback.

May import every package of ``inspector`` except ``ui``; commands render the core's rows
(``print_table``, ``print_json``) and compute nothing a page does not.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..safety.audit import AuditError
from ..safety.redaction import redactor_for
from ..settings import load_settings
from ..store import StoreError
from ..store.not_utf8 import from_token
from . import (
    bundle_commands,
    diff_commands,
    flow_commands,
    media_commands,
    memory_commands,
    operations_commands,
    output,
    retention_commands,
    size_commands,
    store_commands,
)

# Arguments naming an id: each may be given as the id's own bytes or as its ``not_utf8.token`` (``~bytes:<hex>``),
# the spelling of an id that is not UTF-8 which a person can type.
ID_ARGUMENTS = ("thread", "checkpoint", "ns", "from_id", "to_id", "against_thread", "threads")

COMMAND_MODULES = (store_commands, flow_commands, diff_commands, media_commands, size_commands, retention_commands,
                   bundle_commands, operations_commands, memory_commands)


class CliError(Exception):
    """Bad input, reported as one line on stderr with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every other bad input
        raise CliError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m inspector", description="Read-only inspector for LangGraph checkpoint stores.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        _read_id_tokens(args)
        output.use_redactor(redactor_for(load_settings(), reveal=getattr(args, "reveal", False)))
        return int(args.handler(args) or 0)
    except (CliError, StoreError, ValueError, PermissionError, AuditError) as exc:
        output.warn(f"error: {exc}")
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI answers in one line, never a traceback
        output.warn(f"error: {type(exc).__name__}: {exc}")
        return 1


def _read_id_tokens(args: argparse.Namespace) -> None:
    for name in ID_ARGUMENTS:
        value = getattr(args, name, None)
        if isinstance(value, str):
            setattr(args, name, from_token(value))
        elif isinstance(value, list):
            setattr(args, name, [from_token(v) if isinstance(v, str) else v for v in value])


if __name__ == "__main__":
    sys.exit(main())
