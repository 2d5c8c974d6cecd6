"""``python -m evidence_ledger convert-weights``: a pickle-only model, once, to safetensors.

In:  a model whose weights transformers would load as pickle (``pytorch_model.bin`` or its
     sharded index): a local directory, or a Hub id + ``--revision`` resolved offline from the
     Hugging Face cache (:mod:`evidence_ledger.model_files`; nothing is downloaded).
Out: ``--out DIR`` holding ``model.safetensors`` (every tensor of the pickle, loaded with
     ``torch.load(..., weights_only=True)``: tensors only, no arbitrary code), the source's
     config and tokenizer files copied unchanged, and ``conversion.json`` recording the source
     (hub id + revision, or the path as given), the sha256 of each source weight file and of
     the written ``model.safetensors``.

safetensors refuses tensors that share storage (tied embeddings) or are views of a larger
storage; those are cloned, so every key of the pickle is kept. The written file is read back
and compared tensor by tensor before ``conversion.json`` is written. The paper run converts
``microsoft/deberta-large-mnli`` (pickle only at its pinned revision) this way and loads the
result with ``verifier.base_model.local_dir`` (README, "Reproducing the paper on a GPU
workstation"; ``docs/footguns.md``).
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from .model_files import (COMPANION_SUFFIXES, INDEX_NAMES, SAFE_WEIGHTS, WEIGHT_SUFFIXES, file_sha256,
                          loaded_weight_files, model_directory)

CONVERSION_RECORD = "conversion.json"


def pickle_state_dict(weight_files) -> dict:
    """Every tensor of the pickle weight files (index files skipped), loaded tensor-only on CPU."""
    import torch

    state: dict = {}
    for f in weight_files:
        if Path(f).name in INDEX_NAMES:
            continue
        part = torch.load(f, map_location="cpu", weights_only=True)
        duplicated = sorted(set(part) & set(state))
        if duplicated:
            raise ValueError(f"{f}: tensors {duplicated[:5]} also appear in an earlier shard")
        state.update(part)
    return state


def unshared_tensors(state: dict) -> dict:
    """``state`` with every tensor owning a contiguous storage of its own (safetensors' rule):
    a tensor whose storage an earlier key already holds, a view of a larger storage, or a
    non-contiguous tensor is cloned; values are unchanged."""
    seen: set = set()
    out = {}
    for name in sorted(state):
        t = state[name]
        storage = t.untyped_storage()
        ptr = storage.data_ptr()
        whole = t.is_contiguous() and storage.nbytes() == t.numel() * t.element_size()
        if ptr in seen or not whole:
            t = t.clone().contiguous()
        else:
            seen.add(ptr)
        out[name] = t
    return out


def companion_files(directory) -> list[Path]:
    """The top-level config and tokenizer files of a model directory (what is copied next to
    the converted weights); tensor files (``*.bin`` included) and weight indexes are not."""
    return sorted(p for p in Path(directory).iterdir()
                  if p.is_file() and p.suffix in COMPANION_SUFFIXES and p.suffix not in WEIGHT_SUFFIXES
                  and p.name not in INDEX_NAMES and p.name != CONVERSION_RECORD)


def check_round_trip(state: dict, path) -> None:
    """Raise ``ValueError`` unless the safetensors file holds exactly ``state``'s keys and values."""
    import torch
    from safetensors.torch import load_file

    written = load_file(str(path))
    if set(written) != set(state):
        raise ValueError(f"{path}: keys differ from the pickle: {sorted(set(written) ^ set(state))[:5]}")
    for name, t in state.items():
        if written[name].dtype != t.dtype or not torch.equal(written[name], t):
            raise ValueError(f"{path}: tensor {name} differs from the pickle")


def convert_weights(source: str, out_dir, revision: str | None = None) -> dict:
    """Convert ``source`` (local dir, or Hub id at ``revision`` from the cache) into ``out_dir``;
    returns the conversion record also written to ``out_dir/conversion.json``."""
    from safetensors.torch import save_file

    src_dir = model_directory(source, revision)
    fmt, weights = loaded_weight_files(src_dir)
    if fmt != "pickle":
        raise ValueError(f"{source}: transformers already loads safetensors ({weights[0].name}); nothing to convert")
    out_dir = Path(out_dir)
    if (out_dir / SAFE_WEIGHTS).exists():
        raise FileExistsError(f"{out_dir / SAFE_WEIGHTS} exists; convert into a new directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    state = unshared_tensors(pickle_state_dict(weights))
    target = out_dir / SAFE_WEIGHTS
    save_file(state, str(target), metadata={"format": "pt"})
    check_round_trip(state, target)
    copied = []
    for f in companion_files(src_dir):
        shutil.copyfile(f, out_dir / f.name)
        copied.append(f.name)
    local = Path(source).is_dir()
    record = {
        "source": str(source),
        "revision": None if local else (revision or "main"),
        "source_weights": {w.name: file_sha256(w) for w in weights},
        "model.safetensors": file_sha256(target),
        "tensors": len(state),
        "copied_files": copied,
        "loader": "torch.load(weights_only=True)",
    }
    (out_dir / CONVERSION_RECORD).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return record


def register(subparsers) -> None:
    parser = subparsers.add_parser("convert-weights", help="convert a pickle-only model to safetensors (offline)",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="local model directory, or Hub id (resolved from the local cache)")
    parser.add_argument("--revision", default=None, help="Hub revision (commit sha) of a Hub id")
    parser.add_argument("--out", required=True, help="directory to write model.safetensors, config, tokenizer to")
    parser.set_defaults(func=run)


def run(args) -> int:
    record = convert_weights(args.source, args.out, args.revision)
    print(json.dumps(record, indent=2, sort_keys=True))
    return 0
