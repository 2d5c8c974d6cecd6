"""Session fixtures shared by the workflow tests: the rehearsal data tree and one rehearsal run
through the workstation profile (the SLURM test compares its own run with it).

``EVIDENCE_LEDGER_REHEARSAL_DATA=<tree>`` and ``EVIDENCE_LEDGER_REHEARSAL_RUN=<work directory>``
(both, from an earlier run of the README's rehearsal command on that tree) make the tests that
read the rehearsal use that run instead of making one, as ``EVIDENCE_LEDGER_DEMO_RUN`` does for
the demo."""
import os
from pathlib import Path

import pytest

from support.rehearsal import DEFAULT_PROFILE, paper_data_tree, rehearsal_args, snakemake


@pytest.fixture(scope="session")
def rehearsal_data(tmp_path_factory) -> Path:
    given = os.environ.get("EVIDENCE_LEDGER_REHEARSAL_DATA")
    if given:
        return Path(given).resolve()
    return paper_data_tree(tmp_path_factory.mktemp("rehearsal_data"))


@pytest.fixture(scope="session")
def rehearsal_run(rehearsal_data, tmp_path_factory) -> Path:
    """Work directory of the README's workstation command on the rehearsal (default profile)."""
    given = os.environ.get("EVIDENCE_LEDGER_REHEARSAL_RUN")
    if given:
        assert os.environ.get("EVIDENCE_LEDGER_REHEARSAL_DATA"), "EVIDENCE_LEDGER_REHEARSAL_RUN needs the data tree too"
        return Path(given).resolve()
    work = tmp_path_factory.mktemp("rehearsal_local")
    proc = snakemake(work, "--profile", str(DEFAULT_PROFILE), *rehearsal_args(rehearsal_data))
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-8000:]
    return work
