"""The session's dry runs, read by every workflow test that needs them; the whole-pipeline runs
(``demo_run``, ``rehearsal_data``, ``rehearsal_run``, ``slurm_rehearsal``) are the plugin
support/session_runs.py's, started before the first test.

* ``paper_hub``: a Hugging Face cache of stand-ins of the Hub models config/paper.yaml loads;
* ``paper_dry_run`` / ``rehearsal_dry_run``: the dry runs of the paper config (its Hub models as
  stand-ins in a cache, ``gpu_jobs=cpu`` on this CPU-only machine) and of the rehearsal, on the
  rehearsal's data tree: the finished processes, whose output the tests read.

A test that changes a run works on a copy of it (or runs only the rules it needs in a directory
of its own): the runs' results/ are only read (``snakemake --report`` writes its report.html
beside them). Every fixture that starts Snakemake is tagged with its cost marker
(support/cost_markers.py), so a test that reads it must be marked too. All runs go through
support/snakemake_runs.py.
"""
from pathlib import Path

import pytest

from support.cost_markers import costs
from support.rehearsal import DEFAULT_PROFILE, paper_args, paper_hub_cache, rehearsal_args
from support.snakemake_runs import WITHOUT_MAKEFILE_ENV, run_snakemake


@pytest.fixture(scope="session")
def paper_hub(tmp_path_factory) -> Path:
    """A Hugging Face cache holding stand-ins of the Hub models config/paper.yaml loads."""
    return paper_hub_cache(tmp_path_factory.mktemp("paper_hf_cache"))


@pytest.fixture(scope="session")
@costs("workflow")
def paper_dry_run(rehearsal_data, paper_hub, tmp_path_factory):
    """The README's workstation command, dry, with config/paper.yaml on the rehearsal's data tree:
    its models in the cache and, on this CPU-only machine, the CPU route for its GPU jobs
    (``gpu_jobs=cpu``: the same jobs, none granted a GPU), as the preflight says it must."""
    return run_snakemake(tmp_path_factory.mktemp("paper_dry_run"), "-n", "--profile", DEFAULT_PROFILE,
                         *paper_args(rehearsal_data), "gpu_jobs=cpu", hub_cache=paper_hub,
                         env=WITHOUT_MAKEFILE_ENV, check=True)


@pytest.fixture(scope="session")
@costs("workflow")
def rehearsal_dry_run(rehearsal_data, tmp_path_factory):
    """The README's rehearsal command, dry (default profile), on the rehearsal's data tree."""
    return run_snakemake(tmp_path_factory.mktemp("rehearsal_dry_run"), "-n", "--profile", DEFAULT_PROFILE,
                         *rehearsal_args(rehearsal_data), env=WITHOUT_MAKEFILE_ENV, check=True)
