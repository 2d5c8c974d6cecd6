"""The preflight: every mistake that can be known before a run's first job, one line each.

``python -m evidence_ledger check --configfile ... --config ...`` (the same ``--configfile``
and ``--config`` as Snakemake, merged and typed the same way: :mod:`evidence_ledger.config.layers`)
prints one line per check and exits non-zero when any fails; the workflow runs the same checks
when it starts, every run and every dry run, before any job (workflow/rules/common.smk), and
prints only what failed or needs saying. ``plan`` shares the config handling (:func:`command_line_run`).

In:  the run's config (:class:`~evidence_ledger.config.layers.RunConfig`), the workflow's
     directory (the Snakefile's: its own config layers, schema and shipped files), the run
     directory (Snakemake's working directory, where relative paths resolve and ``results/`` is
     written) and the GPUs the run grants (``--resources gpu=N``; None: no limit, e.g. SLURM).
Out: :class:`Check` rows, one line each: ``ok``, ``FAIL`` or ``note``, the area, and the config
     key or file with what to do. Areas, in order:

* ``config``: the schema (each refused value one line: key, value, the file and line or
  ``--config`` it came from, what is expected; :func:`evidence_ledger.run.config_checks.schema_errors`),
  plugins and benchmark names, and the cross-key checks (``config_checks.config_errors``);
* ``paths``: where relative paths resolve (the run directory, never the installed package; the
  workflow's own layers' files in the workflow's directory), every ``data_root`` path inside it;
* ``data``: ``data_root`` exists and is a non-empty directory; every file the planned jobs read
  (``checks.data_files``: in data_root and outside it) exists, is not empty, and its first record parses in its format
  (a JSON line with the fields its reader needs, a CSV header with the expected columns, the
  SQLite table with its columns and a first row, each ``*.jsonl`` of a wiki directory);
  nothing past the first record of any file is read;
* ``models``: every model the planned jobs load (``checks.models``): built by a rule of
  the run, or present at its pinned revision (Hub cache or local directory) and complete
  (``model_files.model_dir_problems``: config, tokenizer, every shard its index lists, weights
  loadable by the safe rule or the conversion command named), remote code as the config says;
* ``machine``: every GPU job fits the GPUs the run grants (:mod:`evidence_ledger.models.gpu_fit`); a
  GPU is visible when the run grants GPUs to GPU jobs (no limit: a note); free disk where
  ``results/`` is written against the planner's estimate of what the run writes;
* ``plan``: the longest planned Study 2 prompt plus ``generation.max_new_tokens`` fits
  ``generation.vllm.max_model_len`` of every ``generate`` model (vLLM refuses a longer one only
  when the job sends it); so do the WikiContradict and DiffGR prompts whose inputs are already
  ingested (:mod:`evidence_ledger.run.checks.conflict_prompts`).

A config the schema refuses stops the other areas (they read its keys); every other area runs
whatever another found, so one ``check`` names every problem at once. Each area is a module of
:mod:`evidence_ledger.run.checks`; this module runs them in order (:func:`run_checks`), for the
``check`` command (:mod:`evidence_ledger.commands.check`) and the workflow's start
(:func:`workflow_preflight`).
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Iterable, Sequence

from ..config.layers import ConfigError, RunConfig, load_schema, repo_root, run_config
from .checks.config import config_checks
from .checks.context import NOTE, OK, Check, RunContext, not_here
from .checks.data_files import data_bytes, data_checks
from .checks.machine import machine_checks
from .checks.models import model_checks
from .checks.paths import path_checks
from .checks.plan import conflict_prompt_checks, plan_checks, planned_rows
from .config_checks import schema_errors


def run_checks(ctx: RunContext) -> list[Check]:
    """Every check of the run, in area order (module docstring)."""
    if schema_errors(ctx.config, ctx.schema, ctx.origin):
        return config_checks(ctx) + [Check("config", NOTE, "the other checks run once the config above is valid")]
    checks = config_checks(ctx)
    cross_key_failed = any(c.failed for c in checks)
    checks += path_checks(ctx)
    checks += data_checks(ctx)
    checks += model_checks(ctx)
    try:
        planned = ([], []) if cross_key_failed else planned_rows(ctx)
    except ModuleNotFoundError as err:
        planned = ([], [not_here("plan", err).text])
    checks += machine_checks(ctx, data_bytes(ctx), planned)
    if not cross_key_failed:
        try:
            checks += plan_checks(ctx)
            checks += conflict_prompt_checks(ctx)
        except ModuleNotFoundError as err:
            checks.append(not_here("plan", err))
    return checks


def command_line_run(configfiles: Sequence[str], entries: Sequence[str], directory: str | Path = ".",
                     snakefile: str | Path | None = None, gpus_granted: int | None = None,
                     until: Sequence[str] = ()) -> RunContext:
    """A run from a command line like Snakemake's: the workflow of ``snakefile`` (default
    ``DIRECTORY/Snakefile`` or ``./Snakefile``, else this package's checkout), the config
    files (relative to the current directory, as Snakemake reads them) and ``--config``
    entries, run directory ``directory``, the ``--until`` rules."""
    workflow_dir = _workflow_dir(snakefile, directory)
    schema = load_schema(workflow_dir)
    run = run_config(workflow_dir, list(configfiles), list(entries), schema=schema)
    return RunContext(run, workflow_dir, Path(directory).absolute(), schema, gpus_granted, tuple(until))


def until_rules(argv: Sequence[str]) -> tuple[str, ...]:
    """The rules a Snakemake command line ``argv`` names after ``--until`` (``--until a b`` or
    ``--until=a``; values end at the next option); empty when it names none. The workflow's
    start reads them from its own command line, which it has before any DAG is built."""
    out: list[str] = []
    taking = False
    for arg in argv:
        if arg.startswith("--until="):
            out.append(arg.split("=", 1)[1])
            taking = False
        elif arg == "--until":
            taking = True
        elif arg.startswith("-"):
            taking = False
        elif taking:
            out.append(arg)
    return tuple(out)


def _workflow_dir(snakefile, directory) -> Path:
    if snakefile is not None:
        path = Path(snakefile)
        if not path.is_file():
            raise ConfigError(f"--snakefile {snakefile}: no such file")
        return path.absolute().parent
    for candidate in (Path(directory) / "Snakefile", Path("Snakefile")):
        if candidate.is_file() and (candidate.parent / "config" / "defaults.yaml").is_file():
            return candidate.absolute().parent
    return repo_root()


def refusal(checks: Iterable[Check]) -> str | None:
    """The one-line summary of failed checks (None when none failed)."""
    checks = list(checks)
    failed = sum(c.failed for c in checks)
    if not failed:
        return None
    return (f"preflight: {failed} of {len(checks)} checks failed (the FAIL lines above); nothing has run. "
            f"`python -m evidence_ledger check` with the same --configfile/--config lists every check")


# packages some checks need that a Snakemake-only environment (.venv-slurm) lacks
CHECK_PACKAGES = ("pyarrow", "huggingface_hub")


def missing_packages() -> list[str]:
    return [name for name in CHECK_PACKAGES if importlib.util.find_spec(name) is None]


def delegated_preflight(job_python: Path, snakefile: Path | str, configfiles: Sequence, config_args: Sequence[str],
                        gpus_granted: int | None, stream, until: Sequence[str] = ()) -> None:
    """The workflow's start in an environment without :data:`CHECK_PACKAGES` (the SLURM submit
    host's): ``check`` with the run's arguments, run by the jobs' interpreter ``job_python``
    (which has them), its non-``ok`` lines relayed; its failure ends the run."""
    cmd = [str(job_python), "-m", "evidence_ledger", "check", "--snakefile", str(snakefile), "--directory",
           str(Path.cwd())]
    if configfiles:
        cmd += ["--configfile", *[str(f) for f in configfiles]]
    if config_args:
        cmd += ["--config", *[str(a) for a in config_args]]
    if gpus_granted is not None:
        cmd += ["--resources", f"gpu={gpus_granted}"]
    if until:
        cmd += ["--until", *until]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if not line.startswith(OK) or line.startswith("check:"):
            print(line, file=stream, flush=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise SystemExit(f"{last} (preflight run by {job_python}: this environment has no "
                         f"{', '.join(missing_packages())})")


def workflow_preflight(run: RunConfig, workflow_dir: Path | str, gpus_granted: int | None, stream=None, *,
                       job_python: Path | None = None, command_line: tuple | None = None,
                       until: Sequence[str] = ()) -> None:
    """The workflow's start (workflow/rules/common.smk): the checks of this run; their ``FAIL``
    and ``note`` lines (or one line saying all passed) on ``stream`` (stderr); a failure ends
    the Snakemake process before any job with :class:`SystemExit`, one line saying why. Where
    this environment lacks :data:`CHECK_PACKAGES` and the jobs' interpreter ``job_python`` exists,
    the checks run there (:func:`delegated_preflight`, ``command_line`` = the Snakefile, the
    ``--configfile`` files and the ``--config`` entries). ``until``: the run's ``--until`` rules
    (:func:`until_rules`; a generation model without weights passes where they all come before
    generation: :mod:`evidence_ledger.run.checks.models`)."""
    stream = stream if stream is not None else sys.stderr
    if missing_packages() and job_python is not None and Path(job_python).exists() and command_line is not None:
        return delegated_preflight(Path(job_python), *command_line, gpus_granted, stream, until)
    workflow_dir = Path(workflow_dir)
    ctx = RunContext(run, workflow_dir, Path.cwd(), load_schema(workflow_dir), gpus_granted, tuple(until))
    checks = run_checks(ctx)
    for c in checks:
        if c.status != OK:
            print(c.line(), file=stream, flush=True)
    summary = refusal(checks)
    if summary:
        raise SystemExit(f"error: {summary}")
    print(f"preflight: {len(checks)} checks passed (python -m evidence_ledger check lists them)", file=stream,
          flush=True)
