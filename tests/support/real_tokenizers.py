"""The real tokenizers of the paper's two Study 2 models, for the tests that need them.

``$EVIDENCE_LEDGER_TOKENIZERS`` (default: a ``shared/tokenizers`` directory beside the checkout)
holds ``qwen3/`` (Qwen3-8B's tokenizer and chat template) and ``llama3/`` (Llama 3's vocabulary
and merges, equal to Llama-3.1-8B-Instruct's, with Llama 3's chat template). ``real_tokenizer_dir``
returns one of them or skips the calling test naming the missing folder; ``real_tokenizer`` loads
it once per test session.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from support.paths import REPO_ROOT

REAL_TOKENIZERS = Path(os.environ.get("EVIDENCE_LEDGER_TOKENIZERS", REPO_ROOT.parent / "shared" / "tokenizers"))
MODELS = ("qwen3", "llama3")


def real_tokenizers_present() -> bool:
    """Whether both real tokenizer folders hold a tokenizer.json."""
    return all((REAL_TOKENIZERS / m / "tokenizer.json").is_file() for m in MODELS)


def real_tokenizer_dir(name: str) -> Path:
    """The folder of real tokenizer ``name`` (qwen3 | llama3), or skip the test naming it."""
    path = REAL_TOKENIZERS / name
    if not (path / "tokenizer.json").is_file():
        pytest.skip(f"real tokenizer folder {path} not present (tests use {REAL_TOKENIZERS} when available)")
    return path


@functools.lru_cache(maxsize=None)
def _load(path: str):
    from evidence_ledger.evidence.budget import load_tokenizer

    return load_tokenizer(path)


def real_tokenizer(name: str):
    """The real tokenizer ``name`` loaded as the evidence stage loads budget tokenizers (cached)."""
    return _load(str(real_tokenizer_dir(name)))
