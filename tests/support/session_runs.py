"""The session's whole-pipeline runs, each built once, started before the first test that could
wait for them, and read by every test that needs them: a pytest plugin (tests/conftest.py loads
it), so every directory of tests/ sees its fixtures.

* ``demo_run``: the demo (``--configfile config/demo.yaml``, every rule, ``--cores 2``) in a
  temporary work directory; ``EVIDENCE_LEDGER_DEMO_RUN=<work directory>`` (a finished run made
  from this checkout, e.g. by benchmarks/demo_time.py) is read instead of making one;
* ``rehearsal_data``: the data tree in the paper's layout (support/rehearsal.py);
  ``EVIDENCE_LEDGER_REHEARSAL_DATA=<tree>`` is read instead;
* ``rehearsal_run``: the README's workstation command on that tree (config/paper.yaml +
  config/rehearsal.yaml, default profile), run without the Makefile's environment: the workflow
  makes every job offline and single-threaded itself. ``EVIDENCE_LEDGER_REHEARSAL_RUN=<work
  directory>`` (with the data tree it was made on) is read instead;
* ``slurm_cluster`` / ``slurm_rehearsal``: the one-node SLURM cluster (support/slurm_cluster.py)
  and the rehearsal submitted to it through the SLURM profile (support/slurm_runs.py), read by
  tests/workflow/test_slurm.py, which compares it with ``rehearsal_run``.

``started_at_the_start`` (autouse) starts, before the first test, each of these runs that a
selected, not skipped test reads (support/background_runs.py): the demo and the rehearsal at a
lower CPU priority, the SLURM submission as it is (its jobs run under the cluster's daemon).
The fixture a test reads waits for its run to end (the hang guard is the only limit) and fails
with the run's log tails if it failed. Most of the suite is one pytest process on one core, and
the SLURM run mostly waits on polls and on group jobs whose steps run one after another, so the
runs take the core the tests leave instead of running after them. The starts are made for the
tests that read them (support/cost_markers.py, ``for_the_tests_that_read_it``); those tests
carry the runs' cost markers, checked at collection.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from support.background_runs import BACKGROUND_NICE, read_by_selected_tests, start_in_background
from support.cost_markers import SNAKEMAKE_MARKERS, costs, for_the_tests_that_read_it
from support.paths import REPO_ROOT

DEMO_CONFIG = REPO_ROOT / "config" / "demo.yaml"
#: the run a test reads -> the fixture that starts it (None where a given run is read instead)
STARTERS = {"demo_run": "demo_run_started", "rehearsal_run": "rehearsal_run_started",
            "slurm_rehearsal": "slurm_rehearsal"}


@pytest.fixture(scope="session", autouse=True)
def started_at_the_start(request) -> dict:
    """``{run fixture: what its starter returned}`` for the runs a selected test reads, started
    before the first test."""
    items = request.session.items
    with for_the_tests_that_read_it():
        return {run: request.getfixturevalue(starter) for run, starter in STARTERS.items()
                if read_by_selected_tests(items, run)}


@pytest.fixture(scope="session")
def rehearsal_data(tmp_path_factory) -> Path:
    """The data tree in the paper's layout that the rehearsal runs read."""
    from support.rehearsal import paper_data_tree

    given = os.environ.get("EVIDENCE_LEDGER_REHEARSAL_DATA")
    if given:
        return Path(given).resolve()
    return paper_data_tree(tmp_path_factory.mktemp("rehearsal_data"))


@pytest.fixture(scope="session")
@costs("workflow")
def demo_run_started(tmp_path_factory):
    """The demo, running (None where EVIDENCE_LEDGER_DEMO_RUN names a finished one)."""
    if os.environ.get("EVIDENCE_LEDGER_DEMO_RUN"):
        yield None
        return
    run = start_in_background(tmp_path_factory.mktemp("demo"), "--configfile", DEMO_CONFIG, "--cores", "2",
                              logs=tmp_path_factory.mktemp("demo_logs"), nice=BACKGROUND_NICE)
    yield run
    run.stop()


@pytest.fixture(scope="session")
@costs("workflow")
def demo_run(demo_run_started) -> Path:
    """Work directory of a finished demo run (module docstring)."""
    reuse = os.environ.get("EVIDENCE_LEDGER_DEMO_RUN")
    if reuse:
        workdir = Path(reuse)
        assert (workdir / "results").is_dir(), f"EVIDENCE_LEDGER_DEMO_RUN={reuse} holds no results/ directory"
        return workdir
    demo_run_started.finished(check=True)
    return demo_run_started.workdir


@pytest.fixture(scope="session")
@costs(*SNAKEMAKE_MARKERS)
def rehearsal_run_started(rehearsal_data, tmp_path_factory):
    """The README's rehearsal command, running (None where EVIDENCE_LEDGER_REHEARSAL_RUN names a
    finished one)."""
    from support.rehearsal import DEFAULT_PROFILE, rehearsal_args
    from support.snakemake_runs import WITHOUT_MAKEFILE_ENV

    if os.environ.get("EVIDENCE_LEDGER_REHEARSAL_RUN"):
        yield None
        return
    run = start_in_background(tmp_path_factory.mktemp("rehearsal_local"), "--profile", DEFAULT_PROFILE,
                              *rehearsal_args(rehearsal_data), logs=tmp_path_factory.mktemp("rehearsal_logs"),
                              env=WITHOUT_MAKEFILE_ENV, nice=BACKGROUND_NICE)
    yield run
    run.stop()


@pytest.fixture(scope="session")
@costs(*SNAKEMAKE_MARKERS)
def rehearsal_run(rehearsal_run_started) -> Path:
    """Work directory of the README's workstation command on the rehearsal (module docstring)."""
    given = os.environ.get("EVIDENCE_LEDGER_REHEARSAL_RUN")
    if given:
        assert os.environ.get("EVIDENCE_LEDGER_REHEARSAL_DATA"), "EVIDENCE_LEDGER_REHEARSAL_RUN needs the data tree too"
        return Path(given).resolve()
    rehearsal_run_started.finished(check=True)
    return rehearsal_run_started.workdir


@pytest.fixture(scope="session")
@costs("slurm")
def slurm_cluster(tmp_path_factory):
    """The session's one-node SLURM cluster; every daemon it started is checked stopped at the end."""
    from support.slurm_cluster import SlurmCluster

    slurm = SlurmCluster(tmp_path_factory.mktemp("slurm"), cpus=2)
    with slurm:
        yield slurm
    leftover = slurm.started_pids_alive()
    assert not leftover, f"daemons still running after stop: {leftover}"


@pytest.fixture(scope="session")
@costs("slurm")
def slurm_rehearsal(slurm_cluster, rehearsal_data, tmp_path_factory):
    """The paper rehearsal submitted through the SLURM profile, running (a
    support.slurm_runs.Submission); stopped at the session's end if it is still going."""
    from support.slurm_runs import REHEARSAL, rehearsal_config, start_submission

    submission = start_submission(slurm_cluster, tmp_path_factory.mktemp("via_slurm"),
                                  tmp_path_factory.mktemp("via_slurm_logs"), REHEARSAL,
                                  rehearsal_config(rehearsal_data))
    yield submission
    submission.background.stop()
