"""Runs submitted through the SLURM profile to the one-node cluster of support/slurm_cluster.py.

What one run submitted through SLURM is (:class:`RunDescription`: config files, targets, the
SLURM run's own ``--config`` keys), the two the tests know (:data:`REHEARSAL`, the paper run rehearsed; :data:`DEMO_SLICE`, a slice
of the demo), how the README's SLURM command is submitted from the submit host's environment
(.venv-slurm, a shell that has neither the pipeline's environment on PATH nor the Makefile's
variables: :func:`submit_env`, :func:`submit`), how many jobs and SLURM submissions a run's dry
run plans (:func:`planned_submissions`), and :class:`Submission`: the rehearsal submitted in the
background at the session's start (support/session_runs.py, ``slurm_rehearsal``;
support/background_runs.py), so that its cluster jobs run beside the rest of the suite instead
of after it.

:func:`skip_reason` says why SLURM runs cannot be made here (binaries, root, .venv-slurm, the
job-side plugin), or None.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from evidence_ledger.run.job_env import JOB_ENV_DEFAULTS

from support.background_runs import BackgroundRun, start_in_background
from support.paths import REPO_ROOT
from support.rehearsal import real_tokenizer_entries
from support.slurm_cluster import SlurmCluster, missing_binaries
from support.snakemake_runs import run_snakemake

SUBMIT_VENV = Path(os.environ.get("EVIDENCE_LEDGER_SLURM_VENV", REPO_ROOT / ".venv-slurm"))
SUBMIT_SNAKEMAKE = SUBMIT_VENV / "bin" / "snakemake"
JOB_PYTHON_DIR = Path(sys.executable).parent  # the pipeline's environment (.venv): jobs run its python


@dataclass(frozen=True)
class RunDescription:
    """What one run submitted through SLURM is: ``configfiles`` (relative to the repository),
    ``targets`` (empty: the default target) and ``slurm_config`` (``--config`` keys of the SLURM
    run only)."""

    name: str
    configfiles: tuple[str, ...]
    targets: tuple[str, ...] = ()
    slurm_config: dict[str, str] = field(default_factory=dict)


DATASET = "scifact"
DEMO_SLICE = RunDescription(
    name="demo slice",
    configfiles=("config/demo.yaml",),
    targets=(
        f"results/ingest/{DATASET}/claims_dev.parquet",
        f"results/sampling/{DATASET}/sample.parquet",
        f"results/families/{DATASET}/families.parquet",
        f"results/retrieval/{DATASET}/index",
        f"results/retrieval/{DATASET}/ordering_bge.parquet",  # order_bge declares a GPU
    ),
    slurm_config={"gpu_jobs": "cpu"},
)
# The paper run rehearsed (README "The rehearsal"): compared with the session's workstation-profile
# run of it (the fixture rehearsal_run, on the same data tree).
REHEARSAL = RunDescription(
    name="paper rehearsal",
    configfiles=("config/paper.yaml", "config/rehearsal.yaml"),
    slurm_config={"gpu_jobs": "cpu"},
)


def skip_reason() -> str | None:
    """Why SLURM runs cannot be made on this machine, or None."""
    missing = missing_binaries()
    if missing:
        return f"SLURM/munge binaries not installed ({', '.join(missing)}): apt-get install slurm-wlm munge"
    if os.geteuid() != 0:
        return "starting munged/slurmctld/slurmd as a test needs root"
    if not SUBMIT_SNAKEMAKE.exists():
        return f"submit-host environment {SUBMIT_VENV} missing: run `make install-slurm`"
    probe = subprocess.run([sys.executable, "-c", "import snakemake_executor_plugin_slurm_jobstep"],
                           capture_output=True)
    if probe.returncode != 0:
        return f"{sys.executable} lacks snakemake-executor-plugin-slurm-jobstep: run `make install`"
    return None


def _is_pipeline_bin(entry: str) -> bool:
    path = Path(entry).resolve()
    return path in (JOB_PYTHON_DIR.resolve(), (REPO_ROOT / ".venv" / "bin").resolve())


def submit_env(cluster: SlurmCluster) -> dict[str, str]:
    """A submitting shell that has not activated .venv and has none of the Makefile's variables:
    the pipeline's environment is off PATH, VIRTUAL_ENV and JOB_ENV_DEFAULTS' names unset."""
    env = {k: v for k, v in cluster.env().items() if k not in JOB_ENV_DEFAULTS and k != "VIRTUAL_ENV"}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p and not _is_pipeline_bin(p))
    python = shutil.which("python", path=env["PATH"])
    assert python is None or not _is_pipeline_bin(str(Path(python).parent)), python
    return env


def job_env_config() -> dict[str, str]:
    """``job_env`` only where this test's environment is not the repository's .venv (the default)."""
    if Path(sys.prefix).resolve() == (REPO_ROOT / ".venv").resolve():
        return {}
    return {"job_env": sys.prefix}


def run_args(run: RunDescription) -> list[str]:
    return ["--configfile", *(str(REPO_ROOT / f) for f in run.configfiles)]


def config_args(config: dict[str, str]) -> list[str]:
    return ["--config", *(f"{k}={v}" for k, v in config.items())] if config else []


def submit_args(*extra: str, run: RunDescription = DEMO_SLICE) -> list[str]:
    """The README's SLURM command's arguments with an explicit partition override and a first status
    check after 2 s instead of 40 s (status from squeue is the profile's own setting)."""
    return ["--profile", str(REPO_ROOT / "workflow" / "profiles" / "slurm"), *run_args(run), "--default-resources",
            "slurm_partition=main", "--slurm-init-seconds-before-status-checks", "2", *extra]


def _submit_command(config: dict[str, str], targets: tuple[str, ...], run: RunDescription, dry: bool) -> list[str]:
    target_args = ["--", *targets] if targets else []
    return submit_args(*(["--dry-run"] if dry else []), *config_args({**job_env_config(), **config}), *target_args,
                       run=run)


def submit(cluster: SlurmCluster, workdir: Path, config: dict[str, str], *targets: str,
           run: RunDescription = DEMO_SLICE, dry: bool = False) -> subprocess.CompletedProcess:
    """The run submitted from the submit host's environment (.venv-slurm) in ``submit_env``."""
    return run_snakemake(workdir, *_submit_command(config, targets, run, dry), snakemake=SUBMIT_SNAKEMAKE,
                         base_env=submit_env(cluster))


def planned_submissions(cluster: SlurmCluster, workdir: Path, run: RunDescription,
                        config: dict[str, str]) -> tuple[int, int]:
    """(jobs, submissions) of the SLURM run as its dry run plans them."""
    proc = submit(cluster, workdir, config, *run.targets, run=run, dry=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout + proc.stderr
    jobs = int(re.search(r"^total\s+(\d+)$", out, re.M).group(1))
    groups = len(re.findall(r"\] Group job \S+ \(jobs", out))
    # a group's own jobs are printed indented; `all` (no action) is not submitted
    ungrouped = len([r for r in re.findall(r"^rule (\w+):$", out, re.M) if r != "all"])
    return jobs, groups + ungrouped


def rehearsal_config(data_tree: Path) -> dict[str, str]:
    """``--config`` keys of both runs of the rehearsal: its data tree and, where the real
    tokenizers are present, the entries the local twin's stand-ins are built over."""
    return {"data_root": str(data_tree), **dict(entry.split("=", 1) for entry in real_tokenizer_entries())}


@dataclass
class Submission:
    """A run submitted through SLURM in the background (``background``, whose ``finished()``
    waits for it) and the jobs and SLURM submissions its dry run planned."""

    run: RunDescription
    planned_jobs: int
    planned_submissions: int
    background: BackgroundRun


def start_submission(cluster: SlurmCluster, workdir: Path, logs: Path, run: RunDescription,
                     config: dict[str, str]) -> Submission:
    """Plan ``run`` (its dry run) and submit it without waiting for it."""
    config = {**config, **run.slurm_config}
    jobs, submissions = planned_submissions(cluster, workdir, run, config)
    background = start_in_background(workdir, *_submit_command(config, run.targets, run, dry=False), logs=logs,
                                     snakemake=SUBMIT_SNAKEMAKE, base_env=submit_env(cluster))
    return Submission(run, jobs, submissions, background)
