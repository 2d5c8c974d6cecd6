"""The session's runs, each built once and read by every workflow test that needs it.

* ``demo_run``: the demo (``--configfile config/demo.yaml``, every rule) in a temporary work
  directory; ``EVIDENCE_LEDGER_DEMO_RUN=<work directory>`` (a finished run made from this
  checkout, e.g. by benchmarks/demo_time.py) is read instead of making one;
* ``rehearsal_run``: the README's workstation command (config/paper.yaml + config/rehearsal.yaml,
  default profile) on the rehearsal's data tree (``rehearsal_data``, tests/conftest.py); the
  SLURM test compares the SLURM run of it (``slurm_rehearsal``, tests/conftest.py) with it. ``EVIDENCE_LEDGER_REHEARSAL_DATA=<tree>`` and
  ``EVIDENCE_LEDGER_REHEARSAL_RUN=<work directory>`` (both, from an earlier run of the README's
  rehearsal command on that tree) are read instead;
* ``paper_dry_run`` / ``rehearsal_dry_run``: the dry runs of the paper config (its Hub models as
  stand-ins in a cache, ``gpu_jobs=cpu`` on this CPU-only machine) and of the rehearsal, on the
  rehearsal's data tree: the finished processes, whose output the tests read.

A test that changes a run works on a copy of it (or runs only the rules it needs in a directory
of its own): the runs' results/ are only read (``snakemake --report`` writes its report.html
beside them). Every fixture that starts Snakemake is tagged with its cost marker
(support/cost_markers.py), so a test that reads it must be marked too. All runs go through
support/snakemake_runs.py.
"""
import os
from pathlib import Path

import pytest

from support.cost_markers import SNAKEMAKE_MARKERS, costs
from support.paths import REPO_ROOT
from support.rehearsal import DEFAULT_PROFILE, paper_args, paper_hub_cache, rehearsal_args
from support.snakemake_runs import WITHOUT_MAKEFILE_ENV, run_snakemake

DEMO_CONFIG = REPO_ROOT / "config" / "demo.yaml"


@pytest.fixture(scope="session")
@costs("workflow")
def demo_run(tmp_path_factory) -> Path:
    """Work directory of a finished demo run (module docstring)."""
    reuse = os.environ.get("EVIDENCE_LEDGER_DEMO_RUN")
    if reuse:
        workdir = Path(reuse)
        assert (workdir / "results").is_dir(), f"EVIDENCE_LEDGER_DEMO_RUN={reuse} holds no results/ directory"
        return workdir
    workdir = tmp_path_factory.mktemp("demo")
    run_snakemake(workdir, "--configfile", DEMO_CONFIG, "--cores", "2", check=True)
    return workdir


@pytest.fixture(scope="session")
@costs(*SNAKEMAKE_MARKERS)
def rehearsal_run(rehearsal_data, tmp_path_factory) -> Path:
    """Work directory of the README's workstation command on the rehearsal (default profile),
    run without the Makefile's environment: the workflow makes every job offline and
    single-threaded itself."""
    given = os.environ.get("EVIDENCE_LEDGER_REHEARSAL_RUN")
    if given:
        assert os.environ.get("EVIDENCE_LEDGER_REHEARSAL_DATA"), "EVIDENCE_LEDGER_REHEARSAL_RUN needs the data tree too"
        return Path(given).resolve()
    work = tmp_path_factory.mktemp("rehearsal_local")
    run_snakemake(work, "--profile", DEFAULT_PROFILE, *rehearsal_args(rehearsal_data), env=WITHOUT_MAKEFILE_ENV,
                  check=True)
    return work


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
