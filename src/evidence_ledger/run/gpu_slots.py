"""Each GPU job of a workstation run pinned to devices of its own, without a user wrapper.

In:  the Snakemake process: the GPUs the run grants (``--resources gpu=N``, the default profile's
     ``gpu``) and its ``CUDA_VISIBLE_DEVICES``; a job: the GPUs it declared (its ``gpu``
     resource) and what the Snakemake process exported (:data:`POOL_ENV`, :data:`LOCKS_ENV`).
Out: the job's ``CUDA_VISIBLE_DEVICES``, set before anything initialises CUDA (torch and vLLM read
     it then), naming devices no other running job holds.

Snakemake 9.27 counts a job's ``gpu`` against ``--resources gpu=N`` but gives a job no device
index (no slot number reaches a job: the long-standing "Handle GPU ids" feature request of
Snakemake is open). So the workflow does the rest:
:func:`export_pool` (called once, in the Snakemake process of a local run) exports the device
pool - the ids of the Snakemake process's ``CUDA_VISIBLE_DEVICES`` when set, else ``0..N-1`` -,
and each GPU job's script calls :func:`pin_job_gpus` first, which takes ``gpu`` free slots of the
pool by ``flock`` on one lock file per device (in :data:`LOCKS_ENV`, default
``.snakemake/gpu_slots/`` of the run's working directory) and holds them until the job process
exits (the kernel drops the locks of a killed process too). Snakemake never runs more than N
GPUs' worth of jobs, so a job finds its slots free; where they are not (two runs at once that
share a lock directory: set ``EVIDENCE_LEDGER_GPU_LOCKS`` to one directory for both, as
Snakemake itself does not coordinate two runs) it waits, all-or-nothing (a job needing two
devices never holds one while waiting for the other), logging every minute.

SLURM jobs are left alone: the scheduler sets their ``CUDA_VISIBLE_DEVICES`` (a job under
``SLURM_JOB_ID`` is never pinned, even though it inherits the submitting environment).
"""
from __future__ import annotations

import fcntl
import logging
import os
import time
from pathlib import Path
from typing import IO, MutableMapping, Sequence

from ..errors import ExpectedError

log = logging.getLogger(__name__)

POOL_ENV = "EVIDENCE_LEDGER_GPU_POOL"  # comma-separated device ids of this run's GPU slots
LOCKS_ENV = "EVIDENCE_LEDGER_GPU_LOCKS"  # directory of the slots' lock files
POLL_S = 2.0
_HELD: list[IO] = []  # this process's slot locks: released when the process exits


class GpuPoolError(ExpectedError):
    """``--resources gpu=N`` asks for more devices than ``CUDA_VISIBLE_DEVICES`` names."""


def default_lock_dir() -> Path:
    """The run's own lock directory (Snakemake's working directory is the current one)."""
    return Path(".snakemake", "gpu_slots").resolve()


def device_pool(visible: str | None, gpus_granted: int | None) -> list[str] | None:
    """The run's devices: the first ``gpus_granted`` ids of ``visible`` (``CUDA_VISIBLE_DEVICES``),
    else ``0..gpus_granted-1``; None when the run grants no GPU count (nothing to pin to)."""
    if not gpus_granted:
        return None
    ids = [d.strip() for d in (visible or "").split(",") if d.strip()]
    if visible is None:
        return [str(i) for i in range(int(gpus_granted))]
    if len(ids) < int(gpus_granted):
        raise GpuPoolError(f"--resources gpu={gpus_granted} but CUDA_VISIBLE_DEVICES={visible!r} names "
                           f"{len(ids)} device(s); grant at most that many GPUs or list the devices")
    return ids[: int(gpus_granted)]


def export_pool(environ: MutableMapping[str, str], gpus_granted: int | None) -> list[str] | None:
    """Export the run's device pool (and the lock directory, unless set) for its jobs; returns it."""
    pool = device_pool(environ.get("CUDA_VISIBLE_DEVICES"), gpus_granted)
    if pool is None:
        environ.pop(POOL_ENV, None)
        return None
    environ[POOL_ENV] = ",".join(pool)
    environ.setdefault(LOCKS_ENV, str(default_lock_dir()))
    return pool


def _try_lock(path: Path) -> IO | None:
    handle = open(path, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def acquire_slots(n: int, pool: Sequence[str], lock_dir: str | os.PathLike) -> list[str]:
    """Lock ``n`` free devices of ``pool`` (in pool order) and keep them locked for the life of this
    process; waits, holding none, until ``n`` are free at once."""
    if n > len(pool):
        raise GpuPoolError(f"a job needs {n} GPUs but the run's pool has {len(pool)} ({','.join(pool)})")
    lock_dir = Path(lock_dir)
    lock_dir.mkdir(parents=True, exist_ok=True)
    waited, next_log = 0.0, 0.0
    while True:
        got: list[tuple[str, IO]] = []
        for device in pool:
            handle = _try_lock(lock_dir / f"gpu-{device}.lock")
            if handle is not None:
                got.append((device, handle))
                if len(got) == n:
                    _HELD.extend(h for _, h in got)
                    return [d for d, _ in got]
        for _, handle in got:
            handle.close()
        if waited >= next_log:
            next_log = waited + 60
            log.info("waiting for %d free GPU(s) of %s (locks in %s: another job or run holds them)", n,
                     ",".join(pool), lock_dir)
        time.sleep(POLL_S)
        waited += POLL_S


def pin_job_gpus(gpus: int, environ: MutableMapping[str, str] | None = None) -> list[str] | None:
    """Set ``CUDA_VISIBLE_DEVICES`` of this job to ``gpus`` devices of the run's pool; returns them
    (None: nothing to pin - no GPU wanted, no pool exported, or a SLURM job)."""
    environ = os.environ if environ is None else environ
    pool = [d for d in environ.get(POOL_ENV, "").split(",") if d]
    if not gpus or not pool or "SLURM_JOB_ID" in environ:
        return None
    devices = acquire_slots(int(gpus), pool, environ.get(LOCKS_ENV) or default_lock_dir())
    environ["CUDA_VISIBLE_DEVICES"] = ",".join(devices)
    log.info("GPU slot(s) %s of the run's pool %s: CUDA_VISIBLE_DEVICES=%s", devices, ",".join(pool),
             environ["CUDA_VISIBLE_DEVICES"])
    return devices
