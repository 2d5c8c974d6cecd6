"""Hugging Face cache snapshots that hold a model's tokenizer and config.json but no weights,
made from the real Qwen3 and Llama 3 tokenizers, for the tests of a plan from tokenizers alone.

``real_tokenizers()`` is the folder holding them (``$EVIDENCE_LEDGER_SHARED_TOKENIZERS``, default
a ``shared/tokenizers`` directory beside the checkout) or skips the calling test, naming it.
``tokenizer_only_hub_cache(cache, config)`` copies ``config.json``, ``tokenizer.json`` and
``tokenizer_config.json`` of each of the config's generation models into the snapshot directory
``hf download HUB_ID --revision REV --include ...`` leaves at the config's revision: what a
researcher holds before fetching any weights.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from support.hub_cache import snapshot_dir
from support.paths import REPO_ROOT

SHARED_TOKENIZERS = Path(os.environ.get("EVIDENCE_LEDGER_SHARED_TOKENIZERS",
                                        REPO_ROOT.parent / "shared" / "tokenizers"))
# the folder of the real tokenizer each paper model uses (Llama 3's vocabulary and merges are 3.1's)
TOKENIZER_FOLDERS = {"Qwen/Qwen3-8B": "qwen3", "meta-llama/Llama-3.1-8B-Instruct": "llama3"}
SNAPSHOT_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json")


def real_tokenizers() -> Path:
    """The folder of the real tokenizers, or skip the test saying it is absent."""
    if not all((SHARED_TOKENIZERS / f / "tokenizer.json").is_file() for f in TOKENIZER_FOLDERS.values()):
        pytest.skip(f"the real Qwen3 and Llama 3 tokenizers are not in {SHARED_TOKENIZERS} "
                    f"(set EVIDENCE_LEDGER_SHARED_TOKENIZERS to their folder)")
    return SHARED_TOKENIZERS


def tokenizer_only_hub_cache(cache: Path, config) -> dict[str, Path]:
    """``{model key: snapshot directory}`` of each generation model of ``config`` in the Hugging
    Face cache ``cache``, holding its real tokenizer and config.json and no weights."""
    source = real_tokenizers()
    out = {}
    for name in config["generation"]["models"]:
        spec = config["models"][name]
        snapshot = snapshot_dir(cache, spec["hub_id"], spec["revision"])
        snapshot.mkdir(parents=True, exist_ok=True)
        for file in SNAPSHOT_FILES:
            shutil.copyfile(source / TOKENIZER_FOLDERS[spec["hub_id"]] / file, snapshot / file)
        out[name] = snapshot
    return out
