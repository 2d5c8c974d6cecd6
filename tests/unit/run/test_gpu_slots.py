"""GPU jobs of a workstation run pin themselves to devices no other running job holds (fake
device ids on CPU: nothing here touches a GPU).

* the pool is the Snakemake process's ``CUDA_VISIBLE_DEVICES`` (or 0..N-1), as many as
  ``--resources gpu`` grants, and a grant above the listed devices is refused;
* processes holding slots get distinct devices; a job needing two waits, holding none, until two
  are free at once, and a process's slots are freed when it ends;
* a SLURM job, a job wanting no GPU and a run without a pool are left as they are.
"""
import os
import subprocess
import sys

import pytest

from evidence_ledger.run import gpu_slots

HOLDER = """
import sys
from evidence_ledger.run.gpu_slots import acquire_slots
print(",".join(acquire_slots(int(sys.argv[1]), sys.argv[2].split(","), sys.argv[3])), flush=True)
sys.stdin.read()  # hold the slots until the test closes stdin
"""


def _holder(n, pool, lock_dir):
    return subprocess.Popen([sys.executable, "-c", HOLDER, str(n), ",".join(pool), str(lock_dir)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def test_the_pool_is_the_visible_devices_the_run_grants():
    assert gpu_slots.device_pool("5,7,9", 2) == ["5", "7"]
    assert gpu_slots.device_pool(None, 3) == ["0", "1", "2"]
    assert gpu_slots.device_pool("GPU-aa,GPU-bb", 2) == ["GPU-aa", "GPU-bb"]
    assert gpu_slots.device_pool("5,7", None) is None  # no --resources gpu: nothing to pin to
    with pytest.raises(gpu_slots.GpuPoolError, match=r"--resources gpu=3 but CUDA_VISIBLE_DEVICES='5,7' names 2"):
        gpu_slots.device_pool("5,7", 3)
    env = {"CUDA_VISIBLE_DEVICES": "5,7"}
    assert gpu_slots.export_pool(env, 2) == ["5", "7"]
    assert env[gpu_slots.POOL_ENV] == "5,7" and env[gpu_slots.LOCKS_ENV].endswith(".snakemake/gpu_slots")


def test_jobs_get_distinct_devices_and_a_two_gpu_job_waits_for_two_free_ones(tmp_path):
    pool = ["5", "7", "9"]
    first, second = _holder(1, pool, tmp_path), None
    waiting = None
    try:
        assert first.stdout.readline().strip() == "5"
        second = _holder(1, pool, tmp_path)
        assert second.stdout.readline().strip() == "7"
        waiting = _holder(2, pool, tmp_path)  # only 9 is free: it holds nothing and waits
        first.stdin.close()
        first.wait()  # its lock goes with it
        assert waiting.stdout.readline().strip() == "5,9"
    finally:
        for proc in (first, second, waiting):
            if proc is not None:
                proc.kill()
                proc.wait()


def test_slurm_jobs_jobs_without_a_gpu_and_runs_without_a_pool_are_not_pinned(tmp_path):
    base = {gpu_slots.POOL_ENV: "5,7", gpu_slots.LOCKS_ENV: str(tmp_path), "CUDA_VISIBLE_DEVICES": "3"}
    slurm = dict(base, SLURM_JOB_ID="42")
    assert gpu_slots.pin_job_gpus(1, slurm) is None and slurm["CUDA_VISIBLE_DEVICES"] == "3"
    assert gpu_slots.pin_job_gpus(0, dict(base)) is None
    assert gpu_slots.pin_job_gpus(1, {"CUDA_VISIBLE_DEVICES": "3"}) is None
    code = ("import os; from evidence_ledger.run.gpu_slots import pin_job_gpus; "
            "print(pin_job_gpus(2), os.environ['CUDA_VISIBLE_DEVICES'])")
    env = {k: v for k, v in os.environ.items() if k != "SLURM_JOB_ID"}
    out = subprocess.run([sys.executable, "-c", code], env={**env, **base}, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["['5',", "'7']", "5,7"]
