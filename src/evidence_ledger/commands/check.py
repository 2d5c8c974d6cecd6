"""``python -m evidence_ledger check``: every check of a run before its first job, one line each
(:mod:`evidence_ledger.run.preflight`; the checks: :mod:`evidence_ledger.run.checks`).

In:  ``--configfile``, ``--config``, ``--directory`` and ``--snakefile`` as Snakemake takes them,
     and the GPUs the run grants (``--resources gpu=N`` or a profile's ``resources:``).
Out: one line per check on stdout; exit 0 when all pass, else :class:`PreflightFailed` (one line).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Mapping, Sequence

from ..config.layers import ConfigError
from ..errors import ExpectedError
from ..run import preflight
from ..run.preflight import command_line_run, refusal, run_checks


class PreflightFailed(ExpectedError):
    """Some check failed; the message says how many (the ``FAIL`` lines say which)."""


def granted_gpus(resources: Sequence[str], profile: str | None) -> int | None:
    """GPUs granted by ``--resources gpu=N`` (wins) or the profile's ``resources:``; None: no limit."""
    import yaml

    values = list(resources or [])
    if profile and not values:
        path = Path(profile) / "config.yaml"
        if not path.is_file():
            raise ConfigError(f"--profile {profile}: no {path}")
        res = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("resources") or {}
        values = [f"{k}={v}" for k, v in res.items()] if isinstance(res, Mapping) else list(res)
    for item in values:
        name, sep, value = str(item).partition("=")
        if name.strip() == "gpu":
            try:
                return int(value)
            except ValueError:
                raise ConfigError(f"--resources {item!r}: expected gpu=N with N a whole number") from None
    return None


def run(args: argparse.Namespace) -> int:
    ctx = command_line_run(args.configfile, args.config, args.directory, args.snakefile,
                           granted_gpus(args.resources, args.profile), args.until)
    checks = run_checks(ctx)
    for c in checks:
        print(c.line(), flush=True)
    summary = refusal(checks)
    if summary:
        failed = sum(c.failed for c in checks)
        raise PreflightFailed(f"check: {failed} of {len(checks)} checks failed (the FAIL lines); nothing has run")
    print(f"check: all {len(checks)} checks passed; the run can start")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="check a run's config, data, models and machine before it starts",
                              description=preflight.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(p)
    p.add_argument("--resources", nargs="+", default=[], metavar="NAME=N",
                   help="resources the run grants, as for snakemake (gpu=N: the GPUs GPU jobs may use)")
    p.add_argument("--profile", default=None, help="a Snakemake profile directory; its resources: (gpu) are read")
    p.add_argument("--until", nargs="+", default=[], metavar="RULE",
                   help="the rules the run stops at, as for snakemake --until (before generation: models "
                        "without weights pass with a note)")
    p.set_defaults(func=run)


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """``--configfile``, ``--config``, ``--directory`` and ``--snakefile``, as Snakemake takes them."""
    p.add_argument("--configfile", "--configfiles", nargs="+", default=[], metavar="FILE",
                   help="config layers over config/defaults.yaml, as given to snakemake (none: the embedded demo)")
    p.add_argument("--config", nargs="+", default=[], metavar="KEY=VALUE",
                   help="config values, as given to snakemake --config (typed as YAML: n=100, x=null, "
                        "'a={b: {c: 1}}')")
    p.add_argument("--directory", "-d", default=".",
                   help="the run directory (snakemake --directory): relative paths and results/ (default: .)")
    p.add_argument("--snakefile", "-s", default=None,
                   help="the workflow's Snakefile (default: ./Snakefile, else this package's checkout)")
