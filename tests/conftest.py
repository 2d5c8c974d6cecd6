"""Shared fixtures: where the real benchmark files live, and a helper to skip without them."""
import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("EVIDENCE_LEDGER_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")


def shared_file(*parts: str) -> Path:
    """A file under ../shared/data, or skip the test saying which file is missing."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real benchmark file {path} not present (tests use ../shared/data when available)")
    return path


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT
