"""The scorer's settings of a format as the ``account`` command would build them from its flags.

``format_settings("fever")`` gives the defaults, ``format_settings("fever", "--max-evidence", "1")``
what those flags give: the format's own options parsed by argparse, then
``AccountedFormat.settings_from_args`` (the command's route, not a copy of its defaults).
"""
from __future__ import annotations

import argparse

from evidence_ledger.prediction_files.format_registry import get_format


def format_settings(name: str, *argv: str) -> dict:
    fmt = get_format(name)
    parser = argparse.ArgumentParser()
    fmt.add_account_options(parser)
    return fmt.settings_from_args(parser.parse_args(list(argv)))


def read_format_runs(name: str, gold, source0, source1, *argv: str, jobs: int = 1):
    """``prediction_files.runs.read_runs`` of format ``name`` with the settings of ``argv``."""
    from evidence_ledger.prediction_files.runs import read_runs

    return read_runs(get_format(name), gold, source0, source1, format_settings(name, *argv), jobs)
