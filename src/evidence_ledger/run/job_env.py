"""The environment every job inherits, whatever shell the workflow was started from.

In:  the repository root and config ``job_env`` (a virtual environment's directory; relative
     paths resolve against the repository root; unset = the repository's ``.venv``).
Out: ``os.environ`` of the Snakemake process, changed before any job starts: the Makefile's
     thread and offline settings (:data:`JOB_ENV_DEFAULTS`) where the shell has not set them,
     and ``<job_env>/bin`` first on ``PATH``.

Why: a SLURM job is ``sbatch --export=ALL`` of ``python -m snakemake ...``, so it gets the
environment of the submitting Snakemake process and the ``python`` first on its ``PATH``.
Submitted from .venv-slurm without .venv activated, jobs failed with ``No module named
snakemake`` and ran with every BLAS/tokenizer thread pool at full width and Hugging Face online.
workflow/rules/common.smk calls :func:`prepare` once per Snakemake process (the submitting
one, and again inside each job, where it changes nothing). Local runs get the same settings.
"""
from __future__ import annotations

import os
from pathlib import Path

# The Makefile's `export NAME ?= value` lines (tests/unit/run/test_job_env.py keeps them equal).
JOB_ENV_DEFAULTS: dict[str, str] = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "HF_HUB_OFFLINE": "1",
}


def job_env_dir(repo_root: Path | str, job_env: str | None) -> Path | None:
    """The jobs' environment: ``job_env`` resolved against ``repo_root``; unset means the
    repository's ``.venv`` if it exists, else None (keep the PATH as it is, e.g. a conda env
    activated by hand). A ``job_env`` that was set must hold ``bin/python``."""
    repo_root = Path(repo_root)
    if not job_env:
        default = repo_root / ".venv"
        return default if (default / "bin" / "python").exists() else None
    path = Path(job_env)
    path = path if path.is_absolute() else repo_root / path
    if not (path / "bin" / "python").exists():
        raise ValueError(f"config job_env: {path}/bin/python does not exist; name the virtual "
                         f"environment the jobs run in (README 'Running on SLURM')")
    return path


def prepare(repo_root: Path | str, job_env: str | None = None, environ=None) -> Path | None:
    """Set the defaults and put the jobs' environment first on PATH (in ``environ``, default
    ``os.environ``); returns that environment's directory (None: PATH unchanged)."""
    environ = os.environ if environ is None else environ
    for name, value in JOB_ENV_DEFAULTS.items():
        environ.setdefault(name, value)
    env_dir = job_env_dir(repo_root, job_env)
    if env_dir is None:
        return None
    bin_dir = str(env_dir / "bin")
    entries = [p for p in environ.get("PATH", "").split(os.pathsep) if p]
    environ["PATH"] = os.pathsep.join([bin_dir] + [p for p in entries if p != bin_dir])
    environ["VIRTUAL_ENV"] = str(env_dir)
    return env_dir
