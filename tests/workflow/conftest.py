"""Session fixtures shared by the workflow tests: the rehearsal data tree and one rehearsal run
through the workstation profile (the SLURM test compares its own run with it)."""
from pathlib import Path

import pytest

from support.rehearsal import DEFAULT_PROFILE, paper_data_tree, rehearsal_args, snakemake


@pytest.fixture(scope="session")
def rehearsal_data(tmp_path_factory) -> Path:
    return paper_data_tree(tmp_path_factory.mktemp("rehearsal_data"))


@pytest.fixture(scope="session")
def rehearsal_run(rehearsal_data, tmp_path_factory) -> Path:
    """Work directory of the README's workstation command on the rehearsal (default profile)."""
    work = tmp_path_factory.mktemp("rehearsal_local")
    proc = snakemake(work, "--profile", str(DEFAULT_PROFILE), *rehearsal_args(rehearsal_data))
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-8000:]
    return work
