"""The commands of ``python -m evidence_ledger`` (also installed as ``evidence-ledger``), one module each.

  score {fever,feverous,kilt,scifact,...,diffgr}   score official prediction files (prints JSON)
  account {fever,feverous,kilt,scifact,...}        account a system's source-0 / source-1 prediction
                                                   files: how much of a gain is evidence, how much answers
  items DIR --component C [--top N] [--pattern P]  the items that carry a component most, with their
                                                   claim and answers (an accounting's items.parquet)
  check [--configfile CONFIG ...] [--config KEY=VALUE ...]   refuse a run at start: config, data,
                                                   models, machine
  plan --configfile CONFIG [--config ...]          count generation requests and estimate GPU time
  call RULE key=value ...                          run one rule's stage function outside Snakemake
  call --rule RULE wildcard=value ...              ... with what the workflow passes to that job
  rehearsal-data --out DIR [--force]               write a small data tree in the paper's file layout
  convert-weights SOURCE --out DIR                 pickle-only model (dir or cached Hub id) -> safetensors dir

``score`` and ``account`` have one sub-command per accounted format
(``prediction_files.format_registry``; a plugin format adds its own). Each module exposes
``register(subparsers)``; :data:`COMMANDS` lists them in the order ``--help`` shows them, and is
the one list of the commands (``__main__`` builds its parser from it).
"""
from __future__ import annotations

#: every command's module, in help order
COMMANDS = ("score", "account", "items", "check", "plan", "call", "rehearsal_data", "convert_weights")


def command_modules() -> tuple[str, ...]:
    """The dotted module names of :data:`COMMANDS`."""
    return tuple(f"{__name__}.{name}" for name in COMMANDS)
