"""Command line: ``python -m evidence_ledger <command> ...`` (also installed as ``evidence-ledger``).

The commands are listed, each with its module, in :mod:`evidence_ledger.commands`.

Errors a user can fix (:class:`evidence_ledger.errors.ExpectedError`, and a file named on the
command line that cannot be opened) print one line, ``error: ...``, on stderr and exit 2; any
other exception is a bug and keeps its traceback. ``--debug`` (or ``EVIDENCE_LEDGER_DEBUG=1``)
shows the traceback of an expected error too. Flags are never abbreviated: ``--conf`` is an
error, not ``--configfile``.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .commands import command_modules
from .errors import DEBUG_ENV, ExpectedError, debug_requested

EXIT_EXPECTED_ERROR = 2
# an argument naming a file that is not there (or not a file, or one that must not be
# overwritten) is the user's to fix, not a bug
EXPECTED_OS_ERRORS = (FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError, PermissionError)


class CommandParser(argparse.ArgumentParser):
    """An argument parser that never takes a prefix of a flag for the flag (``allow_abbrev=False``),
    for the top level and, through ``add_subparsers``, for every command."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="python -m evidence_ledger")
    parser.add_argument("--version", action="version", version=f"evidence-ledger {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help=f"show the traceback of an expected error (or set {DEBUG_ENV}=1)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in command_modules():
        importlib.import_module(name).register(sub)
    return parser


def debug_wanted(args) -> bool:
    return bool(getattr(args, "debug", False)) or debug_requested()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ExpectedError, *EXPECTED_OS_ERRORS) as err:
        if debug_wanted(args):
            raise
        print(f"error: {err}", file=sys.stderr)
        return EXIT_EXPECTED_ERROR


if __name__ == "__main__":
    sys.exit(main())
