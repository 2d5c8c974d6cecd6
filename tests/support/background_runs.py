"""Session runs started before the first test and read later: :class:`BackgroundRun`.

The session's whole-pipeline runs (the demo, the rehearsal, the rehearsal through SLURM) are
started when the session starts, where a selected test reads them (support/session_runs.py,
``started_at_the_start``), so they run beside the tests that need none of them - most of the
suite runs one process on one core - instead of one after another. The local runs are started
with a lower CPU priority (``nice``), so the tests beside them keep theirs and the runs take what
is left. A reader waits with :meth:`BackgroundRun.finished` (no limit but the hang guard); a run
still going when the session ends is stopped.

:func:`read_by_selected_tests` says whether a selected, not skipped test uses a fixture.
"""
from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from support.hang_guard import HANG_GUARD_S
from support.snakemake_runs import failure_report, start_snakemake

#: the CPU priority the local session runs start with (the tests beside them keep theirs)
BACKGROUND_NICE = 10


def read_by_selected_tests(items, fixture: str) -> bool:
    """Whether a test of ``items`` (the session's selected pytest items) uses ``fixture``,
    directly or through other fixtures, and is not skipped by a mark."""
    return any(fixture in item.fixturenames and item.get_closest_marker("skip") is None for item in items)


@dataclass
class BackgroundRun:
    """A Snakemake process started and not waited for: its work directory, the folder holding its
    ``stdout`` and ``stderr`` files, the process and when it started."""

    workdir: Path
    logs: Path
    process: subprocess.Popen
    started: float
    wall_s: float | None = None

    def finished(self, check: bool = False) -> subprocess.CompletedProcess:
        """Wait for the run (at most the hang guard) and return it as a finished process; with
        ``check``, a run that failed fails the test with its output's and failed jobs' log tails."""
        if self.wall_s is None:
            self.process.wait(timeout=HANG_GUARD_S)
            self.wall_s = time.monotonic() - self.started
        proc = subprocess.CompletedProcess(self.process.args, self.process.returncode,
                                           (self.logs / "stdout").read_text(errors="replace"),
                                           (self.logs / "stderr").read_text(errors="replace"))
        if check and proc.returncode != 0:
            raise AssertionError(failure_report(proc, self.workdir))
        return proc

    def stop(self) -> None:
        """End the run if it is still going (a session that stops early): Snakemake ends its jobs
        (and cancels its SLURM jobs) on SIGTERM."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=HANG_GUARD_S)
            finally:
                if self.process.poll() is None:
                    self.process.kill()
                    self.process.wait()


def start_in_background(workdir: Path, *args: str, logs: Path, nice: int = 0, **runner) -> BackgroundRun:
    """Snakemake in ``workdir`` with ``args`` (and the runner's keywords: ``env``, ``base_env``,
    ``snakemake``, ...), started at CPU priority ``nice`` with its output in ``logs``."""
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / "stdout", "w") as out, open(logs / "stderr", "w") as err:
        process = start_snakemake(workdir, *args, stdout=out, stderr=err, nice=nice, **runner)
    return BackgroundRun(workdir, logs, process, time.monotonic())
