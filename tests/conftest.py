"""Test-wide settings (one thread, offline hub, vLLM in-process) and the repo_root fixture.

Layout: tests/unit/<package>/ mirrors src/evidence_ledger/<package>/, tests/workflow/ runs or
dry-runs Snakemake, tests/benchmarks/ checks the benchmark scripts, tests/support/ holds the
shared helpers (paths, synthetic worlds, reference implementations) and tests/fixtures/ data.
"""
import os
from pathlib import Path

import pytest

from support.paths import REPO_ROOT

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT
