"""Test-wide settings (one thread, offline hub, vLLM in-process), the repo_root fixture, the
cost markers' checks (the plugin support/cost_markers.py): starting Snakemake, a server or a
cluster from a test without its marker is refused, and so, at collection, is a test that uses a
fixture tagged with a cost marker without carrying that marker; and the session's fixtures that
more than one directory reads (the rehearsal's data tree, the vLLM server, the SLURM cluster).

The paper rehearsal through SLURM (``slurm_rehearsal``, read by tests/workflow/test_slurm.py) is
submitted when the session starts, before its first test, where the selected tests read it:
its jobs wait on cluster polls and run a group's jobs one after another, so most of its hour-long
wall time is spent waiting, and the rest of the suite runs beside it instead of after it. Its
reader waits for it to end (the hang guard is the only limit).

Layout: tests/unit/<package>/ mirrors src/evidence_ledger/<package>/, tests/workflow/ runs or
dry-runs Snakemake, tests/benchmarks/ checks the benchmark scripts, tests/support/ holds the
shared helpers (paths, synthetic worlds, reference implementations) and tests/fixtures/ data.
"""
import os
from pathlib import Path

import pytest

# the cost markers' checks (hooks of the plugin support/cost_markers.py, made this conftest's own)
from support.cost_markers import (costs, for_the_tests_that_read_it, pytest_collection_modifyitems,  # noqa: F401
                                  pytest_runtest_protocol)
from support.paths import REPO_ROOT

# pytester runs the inner sessions of tests/adversarial/test_test_suite_hygiene.py
pytest_plugins = ["pytester"]

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def rehearsal_data(tmp_path_factory) -> Path:
    """The data tree in the paper's layout that the rehearsal runs read
    (``EVIDENCE_LEDGER_REHEARSAL_DATA=<tree>``: that tree instead)."""
    from support.rehearsal import paper_data_tree

    given = os.environ.get("EVIDENCE_LEDGER_REHEARSAL_DATA")
    if given:
        return Path(given).resolve()
    return paper_data_tree(tmp_path_factory.mktemp("rehearsal_data"))


@pytest.fixture(scope="session")
@costs("slurm")
def slurm_cluster(tmp_path_factory):
    """The one-node SLURM cluster (support/slurm_cluster.py) of the session; every daemon it
    started is checked stopped at the end."""
    from support.slurm_cluster import SlurmCluster

    slurm = SlurmCluster(tmp_path_factory.mktemp("slurm"), cpus=2)
    with slurm:
        yield slurm
    leftover = slurm.started_pids_alive()
    assert not leftover, f"daemons still running after stop: {leftover}"


@pytest.fixture(scope="session")
@costs("slurm")
def slurm_rehearsal(slurm_cluster, rehearsal_data, tmp_path_factory):
    """The paper rehearsal submitted through the SLURM profile (support/slurm_runs.py), running;
    ``.finished()`` waits for it. Stopped at the session's end if it is still going."""
    from support.slurm_runs import REHEARSAL, rehearsal_config, start_submission

    submission = start_submission(slurm_cluster, tmp_path_factory.mktemp("via_slurm"),
                                  tmp_path_factory.mktemp("via_slurm_logs"), REHEARSAL,
                                  rehearsal_config(rehearsal_data))
    yield submission
    submission.stop()


@pytest.fixture(scope="session", autouse=True)
def submitted_at_the_start(request):
    """The SLURM rehearsal, submitted before the first test where a selected test reads it
    (else None)."""
    from support.slurm_runs import reads_the_slurm_rehearsal

    if any(reads_the_slurm_rehearsal(item) for item in request.session.items):
        with for_the_tests_that_read_it():
            return request.getfixturevalue("slurm_rehearsal")
    return None


@pytest.fixture(scope="session")
def tiny_served_model(tmp_path_factory) -> Path:
    """The demo's tiny Qwen3 stand-in that the session's vLLM server serves."""
    from support.vllm_server import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("served_model") / "qwen3")


@pytest.fixture(scope="session")
@costs("vllm")
def vllm_server(tiny_served_model, tmp_path_factory):
    """One real vLLM OpenAI server on 127.0.0.1 for the whole session (started once: ~40 s), shared by
    every test of a served model; skipped where vLLM is not installed. A test that kills it
    restarts it on the same port before it ends."""
    from support.vllm_server import server_or_skip

    server = server_or_skip(tiny_served_model, tmp_path_factory.mktemp("vllm_server") / "server.log")
    yield server
    server.stop()
