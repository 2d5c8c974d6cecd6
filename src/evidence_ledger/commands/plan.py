"""``python -m evidence_ledger plan``: the generation planner's table for a run's config.

In:  ``--configfile`` and ``--config`` exactly as given to Snakemake (built, typed and checked
     as the workflow does: :func:`evidence_ledger.run.preflight.command_line_run`; a plan needs no
     data, so an unset ``data_root`` is no error), the run directory (``--directory``, alias
     ``--workdir``) whose ``results/`` the planner reads when they match the config.
Out: the request table and GPU-time estimate of :mod:`evidence_ledger.generation.planner`, then
     the GPU-fit table (``--json``: the rows as JSON); ``--exact`` refuses upper bounds. Above the
     table, the generation models planned from their tokenizer and config.json alone (a download
     without weights) and the command that fetches their weights.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from ..generation.plan_format import format_plan
from ..generation.plan_results import PlannerError
from ..generation.plan_tokens import weightless_models
from ..generation.planner import plan
from ..models.gpu_fit import config_device_memory_gb, format_gpu_fit, gpu_fit_rows
from ..run.checks.config import check_config_or_refuse
from ..run.preflight import command_line_run
from .check import add_run_arguments


def planned_config(configfiles: Sequence[str], entries: Sequence[str] = (), directory: str | Path = ".",
                   snakefile: str | Path | None = None):
    """The run the workflow would build from ``configfiles`` and the ``--config`` ``entries``
    (:func:`evidence_ledger.run.preflight.command_line_run`), its config checked as the workflow
    checks it at start (schema, plugins, cross-key checks; one line each, naming the key and
    where it was set); a plan needs no data, so an unset ``data_root`` is not an error here."""
    ctx = command_line_run(configfiles, entries, directory, snakefile)
    check_config_or_refuse(ctx, need_data_root=False)
    return ctx


def run(args: argparse.Namespace) -> int:
    ctx = planned_config(args.configfile, args.config, args.directory, args.snakefile)
    config, workdir = ctx.config, ctx.run_dir
    rows = plan(config, workdir, ctx.data_root())
    if args.exact:
        missing = sorted({f"{r['model']}/{r['dataset']}" for r in rows if not r["exact"]})
        if missing:
            raise PlannerError(f"plan --exact: no evidence table made for this config under {workdir}/results for "
                               f"{', '.join(missing)}; run the pipeline up to assemble_evidence first")
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        weightless = weightless_models(config, workdir)
        if weightless:
            print(f"planned from tokenizers only: {', '.join(key for key, _ in weightless)} "
                  f"{'has' if len(weightless) == 1 else 'have'} config.json and tokenizer files here but no "
                  f"weights: prompts and answers counted with those tokenizers, GPU time and fit read from that "
                  f"config.json; the generate jobs need the weights: "
                  + "; ".join(fetch for _, fetch in weightless))
            print()
        print(format_plan(rows, config["generation"]["planner"]))
        print()
        print(format_gpu_fit(gpu_fit_rows(config, workdir), config_device_memory_gb(config)))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("plan", help="count generation requests and estimate GPU time")
    add_run_arguments(p)
    p.add_argument("--workdir", dest="directory", default=argparse.SUPPRESS,
                   help="the run directory holding results/ (same as --directory)")
    p.add_argument("--json", action="store_true", help="print rows as JSON instead of a table")
    p.add_argument("--exact", action="store_true",
                   help="fail unless every count is exact (built from the evidence tables, not the config)")
    p.set_defaults(func=run)
