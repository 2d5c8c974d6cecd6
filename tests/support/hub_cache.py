"""Model directories in the layouts a paper run loads from, with stand-in contents.

``stand_in_hub_cache(cache, models)`` writes, for each ``(hub_id, revision)``, the snapshot
directory the Hugging Face cache holds after ``hf download HUB_ID --revision REVISION``
(``models--org--name/snapshots/<revision>/``); ``stand_in_model_dir(dir)`` writes a local model
directory (what ``convert-weights`` leaves). Each holds a ``config.json``, a tokenizer that
loads (one token per word) and a whole safetensors file of one small tensor: what the preflight checks a model
for (present at its revision, complete, safe weights), not weights anything could answer with.
A dry run loads no weights, so the paper configuration's dry run can be tested on a machine
without the real models.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file


def stand_in_tokenizer_json() -> str:
    """A whole tokenizer file that loads (``AutoTokenizer``): one token per whitespace-separated
    word, each unknown but ``a`` (what ``plan`` counts a stand-in's answers with)."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tok.to_str()


def stand_in_model_dir(directory, model_type: str = "llama") -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps({"model_type": model_type, "architectures": ["StandIn"]}))
    (directory / "tokenizer.json").write_text(stand_in_tokenizer_json())
    (directory / "tokenizer_config.json").write_text("{}")
    save_file({"weight": np.zeros((2, 2), dtype=np.float32)}, str(directory / "model.safetensors"))
    return directory


def snapshot_dir(cache, hub_id: str, revision: str) -> Path:
    """Where the Hugging Face cache ``cache`` keeps ``hub_id`` at commit ``revision``."""
    return Path(cache) / f"models--{hub_id.replace('/', '--')}" / "snapshots" / revision


def stand_in_hub_cache(cache, models) -> Path:
    """A Hugging Face cache at ``cache`` holding a stand-in snapshot of each ``(hub_id, revision)``."""
    for hub_id, revision in models:
        stand_in_model_dir(snapshot_dir(cache, hub_id, revision))
    return Path(cache)


def paper_hub_models(config) -> list[tuple[str, str]]:
    """``(hub_id, revision)`` of every Hub model a config loads from the cache (no local_dir)."""
    out = [(m["hub_id"], m["revision"]) for m in config["models"].values() if not m.get("local_dir")]
    reranker = config["retrieval"]["reranker"]
    if not reranker.get("local_dir"):
        out.append((reranker["hub_id"], reranker["revision"]))
    return sorted(set(out))
