"""A one-node SLURM cluster on this machine, for tests: munged, slurmctld and slurmd as
background processes under one temporary directory.

In:  a directory to keep everything in (config, key, sockets, state, daemon logs).
Out: a running cluster whose client commands (sbatch, squeue, scancel, sinfo) find it through
the environment from :meth:`SlurmCluster.env` (``SLURM_CONF``); :meth:`SlurmCluster.stop`
ends exactly the daemons it started. Needs root and the Debian packages ``slurm-wlm`` and
``munge``. ``ProctrackType=proctrack/linuxproc`` and ``TaskPlugin=task/none`` let slurmd run
without cgroups; without slurmdbd ``sacct`` fails and the executor polls with ``squeue``,
so finished jobs are kept in ``squeue`` for ``MinJobAge`` (an hour).
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from support.cost_markers import refuse_unless_marked

DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "srun", "squeue", "sinfo", "scancel")


def missing_binaries() -> list[str]:
    """The SLURM/munge programs this helper needs that are not on PATH (or in /usr/sbin)."""
    return [name for name in DAEMONS if _which(name) is None]


def _which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurm_conf(root: Path, host: str, cpus: int, ctld_port: int, slurmd_port: int, munge_socket: Path) -> str:
    """The text of a one-node slurm.conf keeping all state under ``root``."""
    return "\n".join([
        "ClusterName=evidence-ledger-test",
        f"SlurmctldHost={host}(127.0.0.1)",
        "SlurmUser=root",
        "SlurmdUser=root",
        f"SlurmctldPort={ctld_port}",
        f"SlurmdPort={slurmd_port}",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={munge_socket}",
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'slurmctld.log'}",
        f"SlurmdLogFile={root / 'slurmd.log'}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "SchedulerType=sched/backfill",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        "ReturnToService=2",
        "MinJobAge=3600",  # finished jobs stay in squeue for the whole test (status polling, checks)
        "SlurmctldTimeout=30",
        "SlurmdTimeout=30",
        "MpiDefault=none",
        f"NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=20000 State=UNKNOWN",
        f"PartitionName=main Nodes={host} Default=YES MaxTime=INFINITE State=UP",
        "",
    ])


class SlurmCluster:
    """Start with :meth:`start`, stop with :meth:`stop` (also after a failed start)."""

    def __init__(self, root: Path, cpus: int = 2):
        self.root = Path(root)
        self.cpus = cpus
        self.host = socket.gethostname().split(".")[0]
        self.conf = self.root / "slurm.conf"
        self.munge_socket = self.root / "munge" / "munge.socket"
        self._procs: list[subprocess.Popen] = []
        self._pidfiles: list[Path] = []
        self._started_pids: list[int] = []

    @property
    def bin_dir(self) -> Path:
        """Put first on PATH: an ``srun`` that finds this cluster's slurm.conf. The job-side
        executor (snakemake-executor-plugin-slurm-jobstep 0.6.1) drops every ``SLURM_*`` variable,
        ``SLURM_CONF`` included, before its inner ``srun``; a real cluster keeps slurm.conf at the
        default path (or runs configless), this one keeps it in a temporary directory."""
        return self.root / "bin"

    def env(self) -> dict[str, str]:
        """Environment for client commands (and the executor plugin) to reach this cluster."""
        return dict(os.environ, SLURM_CONF=str(self.conf),
                    PATH=f"{self.bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")

    def start(self, timeout: float = 60) -> None:
        refuse_unless_marked(("slurm",), "a SLURM cluster")
        for sub in ("munge", "state", "spool"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(self.root / "munge", 0o700)
        key = self.root / "munge" / "munge.key"
        subprocess.run([_which("mungekey"), "--create", f"--keyfile={key}", "--force"], check=True,
                       capture_output=True)
        os.chmod(key, 0o400)
        munge_pid = self.root / "munge" / "munged.pid"
        subprocess.run([_which("munged"), "--force", f"--socket={self.munge_socket}", f"--key-file={key}",
                        f"--pid-file={munge_pid}", f"--log-file={self.root / 'munge' / 'munged.log'}",
                        f"--seed-file={self.root / 'munge' / 'munged.seed'}"], check=True, capture_output=True)
        self._pidfiles.append(munge_pid)  # munged forks into the background and writes its pid file
        self._started_pids.append(int(munge_pid.read_text().strip()))
        self.conf.write_text(slurm_conf(self.root, self.host, self.cpus, _free_port(), _free_port(),
                                        self.munge_socket))
        self.bin_dir.mkdir(exist_ok=True)
        shim = self.bin_dir / "srun"
        shim.write_text(f'#!/bin/sh\nSLURM_CONF="{self.conf}" exec {_which("srun")} "$@"\n')
        shim.chmod(0o755)
        env = self.env()
        for daemon in ("slurmctld", "slurmd"):
            log = open(self.root / f"{daemon}.stderr", "w")
            self._procs.append(subprocess.Popen([_which(daemon), "-D", "-f", str(self.conf)], env=env,
                                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
            self._started_pids.append(self._procs[-1].pid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for proc in self._procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}:\n{self.daemon_logs()}")
            out = subprocess.run([_which("sinfo"), "-h", "-o", "%t"], env=env, capture_output=True, text=True)
            if out.returncode == 0 and out.stdout.strip() in ("idle", "mix", "alloc"):
                return
            time.sleep(1)
        raise RuntimeError(f"SLURM node not idle after {timeout}s:\n{self.daemon_logs()}")

    def daemon_logs(self) -> str:
        parts = []
        for name in ("slurmctld.log", "slurmd.log", "slurmctld.stderr", "slurmd.stderr", "munge/munged.log"):
            path = self.root / name
            if path.exists():
                parts.append(f"--- {name}\n" + path.read_text(errors="replace")[-3000:])
        return "\n".join(parts)

    def stop(self) -> None:
        """Cancel leftover jobs, then end slurmd, slurmctld and munged (the ones started here)."""
        if self.conf.exists() and _which("scancel"):
            subprocess.run([_which("scancel"), "--user", str(os.getuid())], env=self.env(), capture_output=True)
        for proc in reversed(self._procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self._procs.clear()
        for pidfile in self._pidfiles:
            if pidfile.exists():
                try:
                    os.kill(int(pidfile.read_text().strip()), signal.SIGTERM)
                except (ValueError, ProcessLookupError):
                    pass
        self._pidfiles.clear()
        deadline = time.monotonic() + 10
        while self.started_pids_alive() and time.monotonic() < deadline:
            time.sleep(0.2)

    def started_pids_alive(self) -> list[int]:
        """Pids of daemons started here that still run (zombies waiting for a reaper excluded)."""
        alive = []
        for pid in self._started_pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (FileNotFoundError, IndexError):
                continue
            if state not in ("Z", "X"):
                alive.append(pid)
        return alive

    def __enter__(self) -> "SlurmCluster":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
