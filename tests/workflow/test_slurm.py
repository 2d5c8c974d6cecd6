"""The SLURM profile on a real one-node cluster started by the test (tests/support/slurm_cluster.py).

One run (:data:`RUN`, a :class:`RunDescription`: config files, ``--config`` keys, targets and
how its work directory is prepared) is made through SLURM and locally, and the results must be
equal byte for byte (the response cache and provenance aside). That run is the paper run
rehearsed (README "The rehearsal": config/paper.yaml + config/rehearsal.yaml on a generated data
tree in the paper's layout), every rule, the GPU-declaring ones through the CPU route
``--config gpu_jobs=cpu``; its local twin is the session's workstation-profile run of the
rehearsal (``rehearsal_run``, tests/workflow/conftest.py).
:data:`DEMO_SLICE` (a slice of the demo) is the other ``RunDescription``.
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
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.slurm_cluster import SlurmCluster, missing_binaries  # noqa: E402

from evidence_ledger.run.job_env import JOB_ENV_DEFAULTS  # noqa: E402
from support.cost_markers import costs  # noqa: E402
from support.hang_guard import HANG_GUARD_S  # noqa: E402
from support.rehearsal import real_tokenizer_entries  # noqa: E402
from support.snakemake_runs import run_snakemake, start_snakemake  # noqa: E402

pytestmark = pytest.mark.slurm

REPO = Path(__file__).resolve().parents[2]
SUBMIT_VENV = Path(os.environ.get("EVIDENCE_LEDGER_SLURM_VENV", REPO / ".venv-slurm"))
SUBMIT_SNAKEMAKE = SUBMIT_VENV / "bin" / "snakemake"
JOB_PYTHON_DIR = Path(sys.executable).parent  # the pipeline's environment (.venv): jobs run its python


@dataclass(frozen=True)
class RunDescription:
    """What one comparison run is: ``configfiles`` (relative to the repository), ``config``
    (``--config`` keys of both runs), ``slurm_config`` (``--config`` keys of the SLURM run
    only), ``targets`` (empty: the default target) and ``prepare``, called with a fresh
    directory before the runs, returning further ``--config`` keys of both runs (e.g.
    ``data_root`` of data it wrote there)."""

    name: str
    configfiles: tuple[str, ...]
    targets: tuple[str, ...] = ()
    config: dict[str, str] = field(default_factory=dict)
    slurm_config: dict[str, str] = field(default_factory=dict)
    prepare: Callable[[Path], dict[str, str]] | None = None


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
RUN = REHEARSAL
# outputs that differ between two runs by design: the response cache (shards named by content,
# written in completion order) and provenance (it records how and where the run was made), which
# the ledger copies (its numbers are cells of the compared report tables)
NOT_COMPARED = ("results/cache/", "results/report/provenance", "results/report/ledger.json")


def _skip_reason() -> str | None:
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


SKIP_REASON = _skip_reason()
if SKIP_REASON:
    pytestmark = [pytestmark, pytest.mark.skip(reason=SKIP_REASON)]


def _local_env() -> dict[str, str]:
    """The local baseline run: this test's environment with the pipeline's environment first on PATH."""
    return dict(os.environ, PATH=f"{JOB_PYTHON_DIR}{os.pathsep}{os.environ.get('PATH', '')}")


def _is_pipeline_bin(entry: str) -> bool:
    path = Path(entry).resolve()
    return path in (JOB_PYTHON_DIR.resolve(), (REPO / ".venv" / "bin").resolve())


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
    if Path(sys.prefix).resolve() == (REPO / ".venv").resolve():
        return {}
    return {"job_env": sys.prefix}


def _run_args(run: RunDescription) -> list[str]:
    return ["--configfile", *(str(REPO / f) for f in run.configfiles)]


def _config_args(config: dict[str, str]) -> list[str]:
    return ["--config", *(f"{k}={v}" for k, v in config.items())] if config else []


def submit_args(*extra: str, run: RunDescription = DEMO_SLICE) -> list[str]:
    """The README's SLURM command's arguments with an explicit partition override and a first status
    check after 2 s instead of 40 s (status from squeue is the profile's own setting)."""
    return ["--profile", str(REPO / "workflow" / "profiles" / "slurm"), *_run_args(run), "--default-resources",
            "slurm_partition=main", "--slurm-init-seconds-before-status-checks", "2", *extra]


def submit(cluster: SlurmCluster, workdir: Path, config: dict[str, str], *targets: str,
           run: RunDescription = DEMO_SLICE, dry: bool = False) -> subprocess.CompletedProcess:
    """The run submitted from the submit host's environment (.venv-slurm) in ``submit_env``."""
    target_args = ["--", *targets] if targets else []
    return run_snakemake(workdir, *submit_args(*(["--dry-run"] if dry else []),
                                                *_config_args({**job_env_config(), **config}), *target_args, run=run),
                         snakemake=SUBMIT_SNAKEMAKE, base_env=submit_env(cluster))


def _hashes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "results").rglob("*"))
            if p.is_file() and not str(p.relative_to(root)).startswith(NOT_COMPARED)}


def run_id(stderr: str) -> str:
    return re.search(r"SLURM run ID: (\S+)", stderr).group(1)


@pytest.fixture(scope="module")
@costs("slurm")
def cluster(tmp_path_factory):
    slurm = SlurmCluster(tmp_path_factory.mktemp("slurm"), cpus=2)
    with slurm:
        yield slurm
    leftover = slurm.started_pids_alive()
    assert not leftover, f"daemons still running after stop: {leftover}"


@pytest.fixture(scope="module")
def run_description() -> RunDescription:
    return RUN


@dataclass
class Runs:
    local: Path
    remote: Path
    proc: subprocess.CompletedProcess
    planned_jobs: int  # Snakemake jobs of the run
    planned_submissions: int  # SLURM submissions: group jobs + jobs outside a group


def planned_submissions(cluster: SlurmCluster, workdir: Path, run: RunDescription, config: dict[str, str]) -> tuple[int, int]:
    """(jobs, submissions) of the SLURM run as its dry run plans them."""
    proc = submit(cluster, workdir, config, *run.targets, run=run, dry=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout + proc.stderr
    jobs = int(re.search(r"^total\s+(\d+)$", out, re.M).group(1))
    groups = len(re.findall(r"\] Group job \S+ \(jobs", out))
    # a group's own jobs are printed indented; `all` (no action) is not submitted
    ungrouped = len([r for r in re.findall(r"^rule (\w+):$", out, re.M) if r != "all"])
    return jobs, groups + ungrouped


@pytest.fixture(scope="module")
def runs(cluster, run_description, tmp_path_factory, request) -> Runs:
    """The run made through SLURM, and its local twin: for the rehearsal the session's
    workstation-profile run (same data tree); otherwise a local run made side by side."""
    run = run_description
    remote = tmp_path_factory.mktemp("via_slurm")
    config = dict(run.config)
    if run.prepare:
        config.update(run.prepare(tmp_path_factory.mktemp("prepared")))
    if run is REHEARSAL:
        config["data_root"] = str(request.getfixturevalue("rehearsal_data"))
        # the local twin's stand-ins are built over the real tokenizers where they are present
        config.update(entry.split("=", 1) for entry in real_tokenizer_entries())
        local = request.getfixturevalue("rehearsal_run")
        jobs, submissions = planned_submissions(cluster, remote, run, {**config, **run.slurm_config})
        start = time.monotonic()
        proc = submit(cluster, remote, {**config, **run.slurm_config}, *run.targets, run=run)
        wall = time.monotonic() - start
        assert proc.returncode == 0, proc.stderr[-6000:] + cluster.daemon_logs()
        print(f"\n{run.name} through SLURM: {jobs} jobs in {submissions} submissions, {wall:.0f} s wall")
        return Runs(local, remote, proc, jobs, submissions)
    local = tmp_path_factory.mktemp("local")
    jobs, submissions = planned_submissions(cluster, remote, run, {**config, **run.slurm_config})
    with open(local / "snakemake.stderr", "w") as local_err:
        local_proc = start_snakemake(local, *_run_args(run), "--cores", "1", *_config_args(config), "--",
                                     *run.targets, stdout=subprocess.DEVNULL, stderr=local_err, base_env=_local_env())
        try:
            start = time.monotonic()
            proc = submit(cluster, remote, {**config, **run.slurm_config}, *run.targets, run=run)
            wall = time.monotonic() - start
            local_rc = local_proc.wait(timeout=HANG_GUARD_S)
        finally:
            if local_proc.poll() is None:
                local_proc.kill()
    assert local_rc == 0, (local / "snakemake.stderr").read_text()[-4000:]
    assert proc.returncode == 0, proc.stderr[-6000:] + cluster.daemon_logs()
    print(f"\n{run.name} through SLURM: {jobs} jobs in {submissions} submissions, {wall:.0f} s wall")
    return Runs(local, remote, proc, jobs, submissions)


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
    args = submit_args(*_config_args({"job_env": str(job_env_dir), "data_root": str(REPO / "resources" / "demo")}),
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
