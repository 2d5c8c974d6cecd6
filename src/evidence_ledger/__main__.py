"""Command line: ``python -m evidence_ledger <command> ...`` (also installed as ``evidence-ledger``).

Commands:
  score {fever,feverous,scifact,kilt,diffgr}   score official submission files (prints JSON)
  check [--configfile CONFIG ...] [--config KEY=VALUE ...]   refuse at start: config, data, models, machine
  plan --configfile CONFIG [--config ...]  count generation requests and estimate GPU time
  account {fever,feverous,scifact}         account a system's source-0 / source-1 prediction files
  call RULE key=value ...                  run one rule's stage function outside Snakemake
  call --rule RULE wildcard=value ...      ... with what the workflow passes to that job
  rehearsal-data --out DIR [--force]       write a small data tree in the paper's file layout
  convert-weights SOURCE --out DIR         pickle-only model (dir or cached Hub id) -> safetensors dir
Each command lives in its own module and exposes ``register(subparsers)``.

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
from .errors import DEBUG_ENV, ExpectedError, debug_requested

COMMAND_MODULES = (
    "evidence_ledger.scoring.cli",
    "evidence_ledger.run.check_command",
    "evidence_ledger.run.plan_command",
    "evidence_ledger.account.cli",
    "evidence_ledger.jobs.stage_call",
    "evidence_ledger.datasets.rehearsal_data",
    "evidence_ledger.models.convert_weights",
)
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
    for name in COMMAND_MODULES:
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
