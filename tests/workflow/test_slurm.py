"""The SLURM profile on a real one-node cluster started by the test (tests/support/slurm_cluster.py).

A slice of the demo (ingest -> sampling -> families -> index for SciFact, plus the GPU-declaring
rule ``order_bge`` through the CPU route ``--config gpu_jobs=cpu``) is submitted with the submit-host
environment (.venv-slurm, ``make install-slurm``) exactly as the README says, and its results
must equal a local run's byte for byte. A job fed a malformed input file must fail with the input
error and its traceback in the rule's own log (and in Snakemake's output). Every daemon the test
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
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.slurm_cluster import SlurmCluster, missing_binaries  # noqa: E402

pytestmark = pytest.mark.slurm

REPO = Path(__file__).resolve().parents[2]
SUBMIT_VENV = Path(os.environ.get("EVIDENCE_LEDGER_SLURM_VENV", REPO / ".venv-slurm"))
SUBMIT_SNAKEMAKE = SUBMIT_VENV / "bin" / "snakemake"
JOB_PYTHON_DIR = Path(sys.executable).parent  # the jobs run `python` from PATH: this environment's
DATASET = "scifact"
TARGETS = [
    f"results/ingest/{DATASET}/claims_dev.parquet",
    f"results/sampling/{DATASET}/sample.parquet",
    f"results/families/{DATASET}/families.parquet",
    f"results/retrieval/{DATASET}/index",
    f"results/retrieval/{DATASET}/ordering_bge.parquet",  # order_bge declares a GPU
]


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


def _env(cluster: SlurmCluster | None = None) -> dict[str, str]:
    """The user's shell after activating .venv (so jobs find its python) and, for a cluster,
    after pointing the SLURM commands at it."""
    base = cluster.env() if cluster else dict(os.environ)
    return dict(base, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                TOKENIZERS_PARALLELISM="false", HF_HUB_OFFLINE="1",
                PATH=f"{JOB_PYTHON_DIR}{os.pathsep}{base.get('PATH', '')}")


def _common_args(workdir: Path) -> list[str]:
    return ["--snakefile", str(REPO / "Snakefile"), "--configfile", str(REPO / "config" / "demo.yaml"),
            "--directory", str(workdir)]


def submit_command(workdir: Path, *extra: str) -> list[str]:
    """The README's SLURM command with an explicit partition override, status from squeue (this
    cluster has no slurmdbd, so sacct fails) and a first status check after 2 s instead of 40 s."""
    return [str(SUBMIT_SNAKEMAKE), "--profile", str(REPO / "workflow" / "profiles" / "slurm"),
            *_common_args(workdir), "--default-resources", "slurm_partition=main",
            "--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "2", *extra]


def submit(cluster: SlurmCluster, workdir: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(submit_command(workdir, *extra), capture_output=True, text=True, env=_env(cluster),
                          timeout=600)


def _hashes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "results").rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    slurm = SlurmCluster(tmp_path_factory.mktemp("slurm"), cpus=2)
    with slurm:
        yield slurm
    leftover = slurm.started_pids_alive()
    assert not leftover, f"daemons still running after stop: {leftover}"


@pytest.fixture(scope="module")
def slice_runs(cluster, tmp_path_factory):
    """The slice run locally and through SLURM side by side (the SLURM run waits on polling)."""
    local, remote = tmp_path_factory.mktemp("local"), tmp_path_factory.mktemp("via_slurm")
    with open(local / "snakemake.stderr", "w") as local_err:
        local_proc = subprocess.Popen([str(JOB_PYTHON_DIR / "snakemake"), *_common_args(local), "--cores", "1",
                                       *TARGETS], stdout=subprocess.DEVNULL, stderr=local_err, env=_env())
        try:
            start = time.monotonic()
            proc = submit(cluster, remote, "--config", "gpu_jobs=cpu", "--", *TARGETS)
            wall = time.monotonic() - start
            local_rc = local_proc.wait(timeout=600)
        finally:
            if local_proc.poll() is None:
                local_proc.kill()
    assert local_rc == 0, (local / "snakemake.stderr").read_text()[-4000:]
    assert proc.returncode == 0, proc.stderr[-6000:] + cluster.daemon_logs()
    print(f"\nslice through SLURM: {wall:.0f} s wall")
    return local, remote, proc


def test_slice_through_slurm_equals_local_run(slice_runs):
    local, remote, proc = slice_runs
    planned = int(re.search(r"^total\s+(\d+)$", proc.stderr, re.M).group(1))
    assert proc.stderr.count("has been submitted with SLURM jobid") == planned >= len(TARGETS)
    assert "rule order_bge:" in proc.stderr  # the GPU-declaring rule ran, as a CPU job
    local_hashes, remote_hashes = _hashes(local), _hashes(remote)
    assert len(remote_hashes) > 10
    assert remote_hashes == local_hashes


def test_jobs_ran_on_the_cluster_without_gpu_request(slice_runs, cluster):
    _, _, proc = slice_runs
    planned = int(re.search(r"^total\s+(\d+)$", proc.stderr, re.M).group(1))
    # finished jobs stay visible to squeue for MinJobAge (an hour here): state | GRES asked | partition
    jobs = subprocess.run(["squeue", "--states=all", "-h", "-o", "%T|%b|%P"], env=cluster.env(),
                          capture_output=True, text=True, check=True).stdout.split()
    assert len(jobs) == planned
    assert set(jobs) == {"COMPLETED|N/A|main"}


def test_malformed_input_fails_with_the_error_in_the_rule_log(cluster, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(REPO / "resources" / "demo", data)
    bad = data / "conflict_qa" / "nqcc.jsonl"
    lines = bad.read_text().splitlines()
    lines[6] = "{this is not json"
    bad.write_text("\n".join(lines) + "\n")
    workdir = tmp_path / "run"
    proc = submit(cluster, workdir, "--config", f"data_root={data}", "--", "results/ingest/nqcc/records.parquet")
    assert proc.returncode != 0
    logs = sorted(p for p in (workdir / "logs").rglob("*.log") if "ingest_conflict_qa" in str(p) and "nqcc" in str(p))
    assert logs, f"no rule log under {workdir / 'logs'}: {proc.stderr[-3000:]}"
    text = logs[0].read_text()
    print(f"\n--- {logs[0].relative_to(workdir)}\n{text}")
    assert "Traceback" in text
    assert "InputError" in text and f"{bad}:7" in text
    assert "InputError" in proc.stderr  # show-failed-logs prints the rule log where the user looks
    assert proc.stderr.count("has been submitted with SLURM jobid") == 1  # retries: 0, no resubmission
