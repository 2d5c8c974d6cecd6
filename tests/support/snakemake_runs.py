"""The one way the tests start Snakemake.

``run_snakemake(workdir, *args)`` runs ``python -m snakemake --snakefile <repo>/Snakefile
--directory WORKDIR ARGS...`` and waits for it; ``start_snakemake`` starts the same command and
returns the running process (for a test that kills or cancels what it runs). Every start:

* is refused (:class:`support.cost_markers.UnmarkedCost`, before anything starts) when the
  running test is marked neither ``workflow`` nor ``slurm``;
* runs under the one hang guard (:data:`support.hang_guard.HANG_GUARD_S`, an hour), never a
  speed check;
* gets the test process's environment with ``env`` applied (a name mapped to None is removed;
  :data:`WITHOUT_MAKEFILE_ENV` removes the Makefile's thread and offline settings, for runs that
  show the workflow sets them itself), ``pythonpath`` prepended to ``PYTHONPATH`` (e.g. a plugin's
  folder) and ``hub_cache`` as ``HF_HUB_CACHE`` (a Hugging Face cache of stand-in models,
  support/hub_cache.py); ``base_env`` replaces the test process's environment (a SLURM submit
  shell);
* with ``check=True``, fails the test when Snakemake exits non-zero, with the command, the tail of
  its output and the tail of each failed job's log (:func:`failure_report`).

``workdir=None`` leaves ``--directory`` out (``snakemake --lint``); ``snakemake`` names another
Snakemake executable (the SLURM submit host's); ``cwd`` is the process's working directory.
The result is the ``subprocess.CompletedProcess`` (``returncode``, ``stdout``, ``stderr``).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from evidence_ledger.run.job_env import JOB_ENV_DEFAULTS

from support.cost_markers import SNAKEMAKE_MARKERS, refuse_unless_marked
from support.hang_guard import HANG_GUARD_S
from support.paths import REPO_ROOT

SNAKEFILE = REPO_ROOT / "Snakefile"
#: ``env`` that removes the thread and offline settings the Makefile exports (the workflow's own
#: job defaults): a run whose jobs must be made offline and single-threaded by the workflow itself
WITHOUT_MAKEFILE_ENV = {name: None for name in JOB_ENV_DEFAULTS}
# "log: logs/x.log (check log file(s) for error details)" in Snakemake's report of a failed job
FAILED_JOB_LOG = re.compile(r"^\s*log: (.+?) \(check log file\(s\) for error details\)\s*$", re.M)


def snakemake_command(workdir: Path | None, args: Sequence[str], snakemake: Path | None = None) -> list[str]:
    head = [str(snakemake)] if snakemake else [sys.executable, "-m", "snakemake"]
    where = ["--directory", str(workdir)] if workdir is not None else []
    return [*head, "--snakefile", str(SNAKEFILE), *where, *map(str, args)]


def snakemake_env(env: Mapping[str, str | None] | None = None, pythonpath: Sequence[Path | str] = (),
                  hub_cache: Path | None = None, base_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a Snakemake process (module docstring)."""
    out = dict(os.environ if base_env is None else base_env)
    for name, value in (env or {}).items():
        if value is None:
            out.pop(name, None)
        else:
            out[name] = value
    if pythonpath:
        out["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath), *filter(None, [out.get("PYTHONPATH")])])
    if hub_cache is not None:
        out["HF_HUB_CACHE"] = str(hub_cache)
    return out


def run_snakemake(workdir: Path | None, *args: str, env: Mapping[str, str | None] | None = None,
                  pythonpath: Sequence[Path | str] = (), hub_cache: Path | None = None,
                  base_env: Mapping[str, str] | None = None, snakemake: Path | None = None, cwd: Path | None = None,
                  check: bool = False) -> subprocess.CompletedProcess:
    """Snakemake in ``workdir`` with ``args``, waited for (module docstring)."""
    refuse_unless_marked(SNAKEMAKE_MARKERS, "Snakemake")
    cmd = snakemake_command(workdir, args, snakemake)
    print("snakemake run:", " ".join(cmd))  # pytest shows it with a failing test's captured output
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=HANG_GUARD_S,
                          env=snakemake_env(env, pythonpath, hub_cache, base_env))
    if check and proc.returncode != 0:
        raise AssertionError(failure_report(proc, workdir or Path(cwd or ".")))
    return proc


def start_snakemake(workdir: Path | None, *args: str, stdout=None, stderr=None,
                    env: Mapping[str, str | None] | None = None, pythonpath: Sequence[Path | str] = (),
                    hub_cache: Path | None = None, base_env: Mapping[str, str] | None = None,
                    snakemake: Path | None = None, nice: int = 0) -> subprocess.Popen:
    """Snakemake in ``workdir`` with ``args``, started and not waited for (``stdout``/``stderr``
    as ``subprocess.Popen`` takes them; the caller waits with the hang guard and kills what is left),
    at CPU priority ``nice`` (0: this process's)."""
    refuse_unless_marked(SNAKEMAKE_MARKERS, "Snakemake")
    cmd = ["nice", "-n", str(nice), *snakemake_command(workdir, args, snakemake)] if nice else \
        snakemake_command(workdir, args, snakemake)
    print("snakemake start:", " ".join(cmd))
    return subprocess.Popen(cmd, stdout=stdout, stderr=stderr, text=True,
                            env=snakemake_env(env, pythonpath, hub_cache, base_env))


def failed_job_logs(output: str, workdir: Path) -> list[Path]:
    """The logs Snakemake names for its failed jobs in ``output``, that exist under ``workdir``."""
    paths = [Path(p) if Path(p).is_absolute() else workdir / p for p in FAILED_JOB_LOG.findall(output)]
    return [p for p in dict.fromkeys(paths) if p.is_file()]


def failure_report(proc: subprocess.CompletedProcess, workdir: Path, chars: int = 6000) -> str:
    """What a failed run leaves to read: the command, its exit code, the tail of its output and
    the tail of each failed job's log."""
    output = (proc.stdout or "") + (proc.stderr or "")
    parts = [f"snakemake exited with {proc.returncode}: {' '.join(map(str, proc.args))}",
             f"--- output (tail)\n{output[-chars:]}"]
    for log in failed_job_logs(output, workdir):
        parts.append(f"--- {log} (tail)\n{log.read_text(errors='replace')[-chars // 2:]}")
    return "\n".join(parts)
