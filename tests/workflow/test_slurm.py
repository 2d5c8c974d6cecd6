"""The SLURM profile on a real one-node cluster started by the session (tests/support/slurm_cluster.py).

One run (:data:`RUN`, a ``RunDescription`` of tests/support/slurm_runs.py) is made through SLURM
and locally, and the results must be equal byte for byte (the response cache and provenance
aside). That run is the paper run rehearsed (README "The rehearsal": config/paper.yaml +
config/rehearsal.yaml on a generated data tree in the paper's layout), every rule, the
GPU-declaring ones through the CPU route ``--config gpu_jobs=cpu``; its local twin is the
session's workstation-profile run of the rehearsal (``rehearsal_run``,
tests/support/session_runs.py). The SLURM run of the rehearsal is submitted when the session
starts (``slurm_rehearsal``, same module) and runs beside the other tests; this module waits for
it before it reads it or submits anything of its own (slices of the demo, ``DEMO_SLICE``).
The SLURM run is submitted with the submit-host environment (.venv-slurm) from a shell that has
neither the pipeline's environment on PATH nor any of the Makefile's variables set: the
workflow gives jobs both (evidence_ledger.run.job_env). Its jobs are bundled into the profile's job
groups, so it submits fewer SLURM jobs than it runs. A job fed a malformed input file must fail
with the input error and its traceback in the rule's own log (and in Snakemake's output); a job
cancelled with scancel while it runs must end the run with an error naming it (the profile
polls squeue; with sacct's ``CANCELLED by 0`` the run waited forever). Every daemon the test
started is stopped, also when a check fails.

Needs root, the Debian packages slurm-wlm and munge (.ci/run installs them), .venv-slurm, and the
job-side plugin (snakemake-executor-plugin-slurm-jobstep, in the main environment via
``make install``); skips saying which is missing.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from dataclasses import dataclass
import shutil
from pathlib import Path

import pytest

from support.hang_guard import HANG_GUARD_S
from support.paths import REPO_ROOT as REPO
from support.slurm_cluster import SlurmCluster
from support.slurm_runs import (REHEARSAL, SUBMIT_SNAKEMAKE, config_args, job_env_config, skip_reason, submit,
                                submit_args, submit_env)
from support.snakemake_runs import start_snakemake

pytestmark = pytest.mark.slurm

RUN = REHEARSAL
# outputs that differ between two runs by design: the response cache (shards named by content,
# written in completion order) and provenance (it records how and where the run was made), which
# the ledger copies (its numbers are cells of the compared report tables)
NOT_COMPARED = ("results/cache/", "results/report/provenance", "results/report/ledger.json")

SKIP_REASON = skip_reason()
if SKIP_REASON:
    pytestmark = [pytestmark, pytest.mark.skip(reason=SKIP_REASON)]


def _hashes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "results").rglob("*"))
            if p.is_file() and not str(p.relative_to(root)).startswith(NOT_COMPARED)}


def run_id(stderr: str) -> str:
    return re.search(r"SLURM run ID: (\S+)", stderr).group(1)


@pytest.fixture(scope="module")
def cluster(slurm_cluster, started_at_the_start):
    """The session's cluster, once the rehearsal submitted at the session's start (if it was) has
    ended, so that this module's own runs have it to themselves (the cancel test takes the one
    running job)."""
    if "slurm_rehearsal" in started_at_the_start:
        started_at_the_start["slurm_rehearsal"].background.finished()
    return slurm_cluster


@dataclass
class Runs:
    local: Path
    remote: Path
    proc: subprocess.CompletedProcess
    planned_jobs: int  # Snakemake jobs of the run
    planned_submissions: int  # SLURM submissions: group jobs + jobs outside a group


@pytest.fixture(scope="module")
def runs(cluster, slurm_rehearsal, rehearsal_run) -> Runs:
    """The rehearsal made through SLURM (the session's submission, made from the session's start)
    and its local twin, the session's workstation-profile run on the same data tree."""
    proc = slurm_rehearsal.background.finished()
    assert proc.returncode == 0, proc.stderr[-6000:] + cluster.daemon_logs()
    print(f"\n{RUN.name} through SLURM: {slurm_rehearsal.planned_jobs} jobs in {slurm_rehearsal.planned_submissions} "
          f"submissions, {slurm_rehearsal.background.wall_s:.0f} s wall beside the other tests")
    return Runs(rehearsal_run, slurm_rehearsal.background.workdir, proc, slurm_rehearsal.planned_jobs,
                slurm_rehearsal.planned_submissions)


def test_run_through_slurm_equals_local_run(runs):
    submitted = runs.proc.stderr.count("has been submitted with SLURM jobid")
    assert submitted == runs.planned_submissions < runs.planned_jobs  # job groups bundle jobs
    assert f"{runs.planned_jobs} of {runs.planned_jobs} steps (100%) done" in runs.proc.stderr
    if "order_bge" in " ".join(RUN.targets):
        assert "rule order_bge:" in runs.proc.stderr  # the GPU-declaring rule ran, as a CPU job
    local_hashes, remote_hashes = _hashes(runs.local), _hashes(runs.remote)
    assert len(remote_hashes) > 10
    assert remote_hashes == local_hashes


def test_jobs_ran_on_the_cluster_without_gpu_request(runs, cluster):
    # finished jobs stay visible to squeue for MinJobAge (an hour here): state | GRES asked | partition
    jobs = subprocess.run(["squeue", "--states=all", "-h", "-o", "%T|%b|%P", "--name", run_id(runs.proc.stderr)],
                          env=cluster.env(), capture_output=True, text=True, check=True).stdout.split()
    assert len(jobs) == runs.planned_submissions
    assert set(jobs) == {"COMPLETED|N/A|main"}


def test_malformed_input_fails_with_the_error_in_the_rule_log(cluster, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(REPO / "resources" / "demo", data)
    bad = data / "conflict_qa" / "nqcc.jsonl"
    lines = bad.read_text().splitlines()
    lines[6] = "{this is not json"
    bad.write_text("\n".join(lines) + "\n")
    workdir = tmp_path / "run"
    proc = submit(cluster, workdir, {"data_root": str(data)}, "results/ingest/nqcc/records.parquet")
    assert proc.returncode != 0
    logs = sorted(p for p in (workdir / "logs").rglob("*.log") if "ingest_conflict_qa" in str(p) and "nqcc" in str(p))
    assert logs, f"no rule log under {workdir / 'logs'}: {proc.stderr[-3000:]}"
    text = logs[0].read_text()
    print(f"\n--- {logs[0].relative_to(workdir)}\n{text}")
    assert "Traceback" not in text  # an expected error is one line naming the file and line
    assert f"error: {bad}:7" in text
    assert f"error: {bad}:7" in proc.stderr  # show-failed-logs prints the rule log where the user looks
    assert proc.stderr.count("has been submitted with SLURM jobid") == 1  # retries: 0, no resubmission


def test_cancelled_job_ends_the_run_with_an_error_naming_it(cluster, tmp_path):
    """scancel of a running job: the run stops with an error naming the job, instead of waiting.

    The job's interpreter (``job_env``) first reads a named pipe nobody writes to, so the job is
    still running (blocked in that read) whenever the test gets to it: no race with a job that
    finishes first. Only a job waits there (``python -m snakemake``); the workflow's start, which
    runs the preflight with the same interpreter, goes straight through, and the data files are
    the demo's own (the preflight would refuse a pipe as a data file)."""
    blocking = tmp_path / "never-written"
    os.mkfifo(blocking)
    job_env_dir = tmp_path / "blocking-env"
    (job_env_dir / "bin").mkdir(parents=True)
    real_python = Path(job_env_config().get("job_env", REPO / ".venv")) / "bin" / "python"
    wrapper = job_env_dir / "bin" / "python"
    wrapper.write_text(f'#!/bin/sh\ncase " $* " in *" -m snakemake "*) cat {blocking} > /dev/null ;; esac\n'
                       f'exec {real_python} "$@"\n')
    wrapper.chmod(0o755)
    workdir = tmp_path / "run"
    args = submit_args(*config_args({"job_env": str(job_env_dir), "data_root": str(REPO / "resources" / "demo")}),
                       "--", "results/ingest/nqcc/records.parquet")
    with open(tmp_path / "snakemake.stderr", "w+") as err:
        proc = start_snakemake(workdir, *args, stdout=subprocess.DEVNULL, stderr=err, snakemake=SUBMIT_SNAKEMAKE,
                               base_env=submit_env(cluster))
        try:
            jobid = _wait_for_running_job(cluster, proc)
            subprocess.run(["scancel", jobid], env=cluster.env(), check=True, capture_output=True)
            rc = proc.wait(timeout=HANG_GUARD_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err.seek(0)
        stderr = err.read()
    print(f"\n--- snakemake stderr (tail)\n{stderr[-2500:]}")
    assert rc != 0
    # the plugin's message (a job on its own) or SLURM's log of the job, which the profile's
    # show-failed-logs prints (a group job): either names the cancelled SLURM job
    assert re.search(rf"SLURM-job '{jobid}' failed, SLURM status is: 'CANCELLED'|JOB {jobid} ON \S+ CANCELLED",
                     stderr)
    assert "Error in rule ingest_conflict_qa:" in stderr
    state = subprocess.run(["squeue", "--states=all", "-h", "-j", jobid, "-o", "%T"], env=cluster.env(),
                           capture_output=True, text=True, check=True).stdout.strip()
    assert state == "CANCELLED"


def _wait_for_running_job(cluster: SlurmCluster, proc: subprocess.Popen) -> str:
    """The id of the first RUNNING job of the cluster (only this test's run has one), polling
    squeue until there is one; fails if the run ends first."""
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the run ended (rc {proc.returncode}) before any job ran"
        out = subprocess.run(["squeue", "-h", "-t", "RUNNING", "-o", "%i"], env=cluster.env(),
                             capture_output=True, text=True, check=True).stdout.split()
        if out:
            return out[0]
        time.sleep(1)
    raise AssertionError(f"no job running after {HANG_GUARD_S} s")
