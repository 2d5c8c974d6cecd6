"""Fixtures of the preflight's tests: a data tree in the paper's layout (``rehearsal-data``),
written once, a copy a test may break, and an empty Hugging Face cache."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidence_ledger.datasets.rehearsal_data import write_rehearsal_data


@pytest.fixture(scope="session")
def tree(tmp_path_factory) -> Path:
    return write_rehearsal_data_tree(tmp_path_factory.mktemp("tree") / "data")


def write_rehearsal_data_tree(root: Path) -> Path:
    write_rehearsal_data(root, force=True)
    return root


@pytest.fixture
def data(tree, tmp_path) -> Path:
    """A copy of the tree this test may break."""
    return Path(shutil.copytree(tree, tmp_path / "data"))


@pytest.fixture
def hub(tmp_path, monkeypatch) -> Path:
    """An empty Hugging Face cache, used by every offline lookup of this test."""
    import huggingface_hub.constants

    cache = tmp_path / "hf-cache"
    cache.mkdir()
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    return cache
