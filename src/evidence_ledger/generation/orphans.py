"""Ending the engine processes an earlier, killed attempt of a generation job left running.

In:  a PID file path in the job's output directory (``shards/.generate_{shard}.pid``).
Out: :func:`end_orphans` ends the processes the file names that are still alive *and* still
     run the command line recorded for them (a reused PID runs something else and is left
     alone); :func:`record_processes` then writes this attempt's PID and those of its child
     processes (vLLM's engine core and tensor-parallel workers when they run out of process).

Why: when the Snakemake process that started a job is killed (SIGKILL, a lost SLURM node
shell), a job process or the engine processes it spawned can outlive it and keep their GPU
memory, so the rerun's engine finds no room. By default the vLLM engine runs in the job's
own process (``VLLM_ENABLE_V1_MULTIPROCESSING=0``, ``evidence_ledger.run.job_env``), so a job
leaves at most itself; tensor-parallel runs (``tensor_parallel_size > 1``) start one worker
per GPU, which this file also records. Linux ``/proc`` is read; elsewhere nothing is done.
"""
from __future__ import annotations

import json
import logging
import os
import signal
import time
from pathlib import Path

from ..files.safe_files import write_text_atomic

log = logging.getLogger(__name__)


def command_line(pid: int) -> str | None:
    """The command line of process ``pid`` (NUL-separated args joined by spaces), None if gone."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return raw.replace(b"\0", b" ").decode("utf-8", "replace").strip()


def child_pids(pid: int) -> list[int]:
    """Direct and indirect children of ``pid`` (from ``/proc/<pid>/task/*/children``)."""
    out: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for children in Path(f"/proc/{parent}/task").glob("*/children"):
            try:
                kids = [int(x) for x in children.read_text().split()]
            except OSError:
                continue
            out.extend(kids)
            todo.extend(kids)
    return out


def record_processes(path: str | os.PathLike, pid: int | None = None) -> dict[int, str]:
    """Write ``{pid: command line}`` of ``pid`` (default: this process) and its children to
    ``path``; returns what was written."""
    pid = os.getpid() if pid is None else pid
    procs = {p: cmd for p in [pid, *child_pids(pid)] if (cmd := command_line(p))}
    write_text_atomic(path, json.dumps({str(p): c for p, c in procs.items()}, indent=1))
    return procs


def end_orphans(path: str | os.PathLike, grace_s: float = 30.0) -> list[int]:
    """SIGTERM, then after ``grace_s`` SIGKILL, every process recorded in ``path`` that still
    runs its recorded command line (never this process); returns the PIDs signalled."""
    path = Path(path)
    try:
        recorded = {int(p): c for p, c in json.loads(path.read_text()).items()}
    except (OSError, ValueError):
        return []
    live = [p for p, cmd in recorded.items() if p != os.getpid() and command_line(p) == cmd]
    for pid in live:
        log.warning("ending process %d of an earlier attempt of this job: %s", pid, recorded[pid][:200])
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while any(command_line(p) == recorded[p] for p in live) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in live:
        if command_line(pid) == recorded[pid]:
            _signal(pid, signal.SIGKILL)
    return live


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
