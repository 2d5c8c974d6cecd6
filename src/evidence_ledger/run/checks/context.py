"""The run context every check reads, and the row each check returns.

In:  the run's config (:class:`~evidence_ledger.config.layers.RunConfig`), the workflow's
     directory, the run directory and the GPUs the run grants (:class:`RunContext`).
Out: :class:`Check` rows, one line each: ``ok``, ``FAIL`` or ``note``, the area, and the config
     key or file with what to do; :func:`not_here` for a check this environment cannot run.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ...config.layers import RunConfig, config_value, resolve_path
from ..config_checks import short_value

OK, FAIL, NOTE = "ok", "FAIL", "note"


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``status`` (``ok`` / ``FAIL`` / ``note``), ``area`` and one line of text."""

    area: str
    status: str
    text: str

    @property
    def failed(self) -> bool:
        return self.status == FAIL

    def line(self) -> str:
        return f"{self.status:<4} {self.area:<7} {' '.join(self.text.split())}"


@dataclass
class RunContext:
    """A run as the preflight sees it: its config and origins, the workflow's directory, the run
    directory, the GPUs the run grants and the rules it runs until (``--until``; empty: every
    rule its targets need)."""

    run: RunConfig
    workflow_dir: Path
    run_dir: Path
    schema: dict = field(default_factory=dict)
    gpus_granted: int | None = None
    until: tuple[str, ...] = ()

    @property
    def config(self) -> dict:
        return self.run.config

    def origin(self, key: str | Sequence[str]) -> str:
        return self.run.origin(key)

    def named(self, key: str) -> str:
        """``key = value (origin)``, how every message names a setting."""
        return f"{key} = {short_value(config_value(self.config, key))} ({self.origin(key)})"

    def path(self, key: str, kind: str) -> Path | None:
        return resolve_path(self.run, key, self.run_dir, self.workflow_dir, kind)

    def data_root(self) -> Path | None:
        return self.path("data_root", "input")


def not_here(area: str, err: ModuleNotFoundError) -> Check:
    """What an environment without one of the packages (the SLURM submit host's .venv-slurm has
    neither pyarrow nor huggingface_hub) could not check, said, not skipped silently."""
    return Check(area, NOTE, f"not checked in this environment ({sys.executable}), which has no {err.name}: "
                             f"`python -m evidence_ledger check` with the same arguments in the jobs' environment "
                             f"checks it")
