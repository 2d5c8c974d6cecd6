"""Command line: ``python -m evidence_ledger <command> ...``.

Commands:
  score {fever,feverous,scifact,diffgr}   score official submission files (prints JSON)
  plan --configfile CONFIG                 count generation requests and estimate GPU time
  call RULE key=value ...                  run one rule's stage function outside Snakemake
  call --rule RULE wildcard=value ...      ... with what the workflow passes to that job
  rehearsal-data --out DIR [--force]       write a small data tree in the paper's file layout
  convert-weights SOURCE --out DIR         pickle-only model (dir or cached Hub id) -> safetensors dir
Each command lives in its own module and exposes ``register(subparsers)``.
"""
from __future__ import annotations

import argparse
import importlib
import sys

COMMAND_MODULES = (
    "evidence_ledger.scoring.cli",
    "evidence_ledger.generation.planner",
    "evidence_ledger.stage_call",
    "evidence_ledger.rehearsal_data",
    "evidence_ledger.convert_weights",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evidence_ledger")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
