"""evidence_ledger.run.job_env: the environment every job inherits (README "Running on SLURM")."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from evidence_ledger.run import job_env

REPO = Path(__file__).resolve().parents[3]


def _venv(root: Path) -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python").write_text("")
    return root


def test_defaults_are_the_makefiles_exports():
    exports = dict(re.findall(r"^export (\w+) \?= (\S+)$", (REPO / "Makefile").read_text(), re.M))
    assert exports == job_env.JOB_ENV_DEFAULTS


def test_repository_venv_goes_first_on_path_and_unset_defaults_are_filled(tmp_path):
    venv = _venv(tmp_path / ".venv")
    environ = {"PATH": f"/usr/bin{os.pathsep}{venv / 'bin'}", "OMP_NUM_THREADS": "4"}
    assert job_env.prepare(tmp_path, None, environ) == venv
    assert environ["PATH"].split(os.pathsep) == [str(venv / "bin"), "/usr/bin"]
    assert environ["OMP_NUM_THREADS"] == "4"  # the shell's setting wins
    assert environ["HF_HUB_OFFLINE"] == "1" and environ["TOKENIZERS_PARALLELISM"] == "false"
    job_env.prepare(tmp_path, None, environ)  # again inside a job: nothing changes
    assert environ["PATH"].split(os.pathsep) == [str(venv / "bin"), "/usr/bin"]


def test_configured_env_relative_to_the_repository(tmp_path):
    venv = _venv(tmp_path / "envs" / "jobs")
    environ = {"PATH": "/usr/bin"}
    assert job_env.prepare(tmp_path, "envs/jobs", environ) == venv
    assert environ["PATH"].split(os.pathsep)[0] == str(venv / "bin")


def test_no_venv_keeps_path_and_a_wrong_job_env_fails_clearly(tmp_path):
    environ = {"PATH": "/usr/bin"}
    assert job_env.prepare(tmp_path, None, environ) is None
    assert environ["PATH"] == "/usr/bin"
    with pytest.raises(ValueError, match="job_env: .*/nowhere/bin/python does not exist"):
        job_env.prepare(tmp_path, "nowhere", environ)
