"""Test-wide settings (one thread, offline hub, vLLM in-process), the repo_root fixture, the
cost markers' checks (the plugin support/cost_markers.py): starting Snakemake, a server or a
cluster from a test without its marker is refused, and so, at collection, is a test that uses a
fixture tagged with a cost marker without carrying that marker; the session's vLLM server; and
the session's whole-pipeline runs, started before the first test that could wait for them (the
plugin support/session_runs.py: ``demo_run``, ``rehearsal_data``, ``rehearsal_run``,
``slurm_cluster``, ``slurm_rehearsal``).

Layout: tests/unit/<package>/ mirrors src/evidence_ledger/<package>/, tests/workflow/ runs or
dry-runs Snakemake, tests/benchmarks/ checks the benchmark scripts, tests/support/ holds the
shared helpers (paths, synthetic worlds, reference implementations) and tests/fixtures/ data.
"""
import os
from pathlib import Path

import pytest

# the cost markers' checks (hooks of the plugin support/cost_markers.py, made this conftest's own)
from support.cost_markers import costs, pytest_collection_modifyitems, pytest_runtest_protocol  # noqa: F401
from support.paths import REPO_ROOT

# pytester runs the inner sessions of tests/adversarial/test_test_suite_hygiene.py; session_runs
# holds the session's pipeline runs
pytest_plugins = ["pytester", "support.session_runs"]

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


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
