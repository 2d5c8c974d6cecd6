"""A pickle-only model converted, once, to safetensors (the ``convert-weights`` command: ``commands.convert_weights``).

In:  a model whose weights transformers would load as pickle (``pytorch_model.bin`` or its
     sharded index): a local directory, or a Hub id + ``--revision`` resolved offline from the
     Hugging Face cache (:mod:`evidence_ledger.models.model_files`; nothing is downloaded).
Out: a new directory ``--out DIR`` holding ``model.safetensors`` (every tensor of the pickle,
     loaded with ``torch.load(..., weights_only=True)``: tensors only, no arbitrary code), the
     source's config and tokenizer files copied unchanged, and ``conversion.json`` recording the
     source (hub id + revision, or the path as given), the sha256 of each source weight file and
     of the written ``model.safetensors``.

The conversion is all or nothing: everything is written into a hidden temporary directory beside
``DIR`` and renamed to ``DIR`` only once the written weights have been read back and compared
tensor by tensor; on any failure nothing is left (no ``DIR``, no temporary, no parent directory
the command created). ``DIR`` must be new or an empty directory, and must not be the source
directory or inside it. The source is read under :mod:`evidence_ledger.files.safe_files`' rule: a
shard entry, a named tokenizer file or a link leading out of the source directory is refused,
naming it.

What is refused, in one line naming the file (and the entry): a pickle holding anything but
tensors (a malicious one stops inside ``torch.load``'s tensors-only unpickler, before any of it
runs), a file that is not PyTorch weights (truncated, damaged), and a **training checkpoint**,
whose top level holds optimizer state, counters or nested dictionaries beside or instead of the
tensors. The refusal names those entries; when exactly one of them is itself a dictionary of
tensors (the model's state dict, e.g. ``model`` or ``state_dict``), it says so, and
``--state-dict-entry NAME`` converts that entry alone (recorded in ``conversion.json``). The
entry is never guessed: a checkpoint can hold several (an EMA copy beside the model).

safetensors refuses tensors that share storage (tied embeddings) or are views of a larger
storage; those are cloned, so every key of the pickle is kept. The paper run converts
``microsoft/deberta-large-mnli`` (pickle only at its pinned revision) this way and loads the
result with ``verifier.base_model.local_dir`` (README, "Reproducing the paper on a GPU
workstation"; ``docs/footguns.md``).
"""
from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

from ..errors import ExpectedError
from .model_files import (COMPANION_SUFFIXES, INDEX_NAMES, SAFE_WEIGHTS, WEIGHT_SUFFIXES, containment_root,
                          file_sha256, loaded_weight_files, model_directory)
from ..files.safe_files import OutputRefused, atomic_directory, is_inside, write_text_atomic

CONVERSION_RECORD = "conversion.json"


class ConversionRefused(ExpectedError, ValueError):
    """A source that is not a pickle of tensors this command converts (its message names the file)."""


def load_tensor_pickle(path):
    """What ``torch.load(path, weights_only=True)`` returns on CPU; a file it refuses (anything
    but tensors and plain containers: nothing of it runs) or cannot read (truncated, not a
    PyTorch file) is a :class:`ConversionRefused` naming the file and the unpickler's reason."""
    import pickle

    import torch

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pickle-protocol notes, noise beside the refusal
            return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        raise ConversionRefused(f"{path}: refused: not a pickle of tensors only ({unpickler_reason(err)}); "
                                f"torch.load(weights_only=True) stopped before running any of it") from None
    except MemoryError:
        raise
    except Exception as err:  # noqa: BLE001 - any other failure to read it: the file is not weights
        raise ConversionRefused(f"{path}: not a readable PyTorch weights file ({type(err).__name__}: "
                                f"{first_line(err)})") from None


def first_line(err: BaseException) -> str:
    """The first non-empty line of an exception's message (the whole of it, bounded), or its repr."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return (lines[0] if lines else repr(err))[:300]


def unpickler_reason(err: BaseException) -> str:
    """What torch's tensors-only unpickler stopped at (e.g. ``Unsupported global: GLOBAL
    posix.system``): its own line, without the advice on allow-listing that follows, else the
    message's first line."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if "WeightsUnpickler error:" in line:
            line = line.split("WeightsUnpickler error:", 1)[1].strip() or (lines[i + 1] if i + 1 < len(lines) else "")
            return line.split(". Please", 1)[0][:300]
        if line.startswith("Trying to load unsupported"):
            return line[:300]
    return first_line(err)


def is_tensor_dict(value) -> bool:
    """A non-empty dictionary whose every value is a tensor (a state dict)."""
    import torch

    return isinstance(value, dict) and bool(value) and all(isinstance(v, torch.Tensor) for v in value.values())


def state_dict_of(loaded, path, entry: str | None = None) -> dict:
    """The name -> tensor dictionary of one loaded pickle: the whole of it, or its top-level
    ``entry`` when given. Anything else is a :class:`ConversionRefused` naming the file and the
    entries that are not tensors (a training checkpoint), and pointing at ``--state-dict-entry``
    when exactly one entry is itself a state dict."""
    if not isinstance(loaded, dict):
        raise ConversionRefused(f"{path}: holds a {type(loaded).__name__}, not a dictionary of name -> tensor")
    if entry is not None:
        if entry not in loaded:
            raise ConversionRefused(f"{path}: has no top-level entry {entry!r} (--state-dict-entry); its entries: "
                                    f"{sorted(map(str, loaded))[:10]}")
        if not is_tensor_dict(loaded[entry]):
            raise ConversionRefused(f"{path}: entry {entry!r} (--state-dict-entry) is not a dictionary of tensors")
        return loaded[entry]
    if not loaded:
        raise ConversionRefused(f"{path}: holds no tensors")
    if is_tensor_dict(loaded):
        return loaded
    import torch

    others = sorted(str(k) for k, v in loaded.items() if not isinstance(v, torch.Tensor))
    nested = sorted(str(k) for k, v in loaded.items() if is_tensor_dict(v))
    hint = (f"; entry {nested[0]!r} is a dictionary of {len(loaded[nested[0]])} tensors: convert it alone with "
            f"--state-dict-entry {nested[0]}" if len(nested) == 1 else
            f"; entries {nested} are dictionaries of tensors: choose one with --state-dict-entry NAME" if nested else "")
    raise ConversionRefused(f"{path}: not a state dict: entries {others[:10]} are not tensors (a training "
                            f"checkpoint?){hint}")


def pickle_state_dict(weight_files, entry: str | None = None) -> dict:
    """Every tensor of the pickle weight files (index files skipped), loaded tensor-only on CPU;
    ``entry``: take each file's top-level entry of that name (see :func:`state_dict_of`)."""
    state: dict = {}
    first_file: dict = {}
    for f in weight_files:
        if Path(f).name in INDEX_NAMES:
            continue
        part = state_dict_of(load_tensor_pickle(f), f, entry)
        duplicated = sorted(set(part) & set(state))
        if duplicated:
            raise ConversionRefused(f"{f}: tensor {duplicated[0]!r} also appears in {first_file[duplicated[0]]}"
                                    + (f" (and {len(duplicated) - 1} more)" if len(duplicated) > 1 else ""))
        state.update(part)
        first_file.update(dict.fromkeys(part, f))
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


def output_refusal(src_dir: Path, out_dir: Path) -> OutputRefused | None:
    """Why ``out_dir`` cannot receive a conversion of ``src_dir``: it is the source or inside it
    (a Hub snapshot: inside its cache folder), resolved through links; None when it can."""
    root = containment_root(src_dir)
    if is_inside(root, out_dir):
        return OutputRefused(f"--out {out_dir} is the source directory {src_dir} or inside it; convert into a new "
                             f"directory elsewhere (the source stays as it is)")
    return None


def convert_weights(source: str, out_dir, revision: str | None = None, state_dict_entry: str | None = None) -> dict:
    """Convert ``source`` (local dir, or Hub id at ``revision`` from the cache) into the new
    directory ``out_dir`` (all or nothing: see the module docstring); returns the conversion
    record also written to ``out_dir/conversion.json``."""
    from safetensors.torch import save_file

    src_dir = model_directory(source, revision)
    fmt, weights = loaded_weight_files(src_dir)
    if fmt != "pickle":
        raise ConversionRefused(f"{source}: transformers already loads safetensors ({weights[0].name}); "
                                f"nothing to convert")
    out_dir = Path(out_dir)
    refusal = output_refusal(src_dir, out_dir)
    if refusal is not None:
        raise refusal
    state = unshared_tensors(pickle_state_dict(weights, state_dict_entry))
    with atomic_directory(out_dir) as building:
        target = building / SAFE_WEIGHTS
        save_file(state, str(target), metadata={"format": "pt"})
        check_round_trip(state, target)
        copied = []
        for f in companion_files(src_dir):
            shutil.copyfile(f, building / f.name)
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
        if state_dict_entry is not None:
            record["state_dict_entry"] = state_dict_entry
        write_text_atomic(building / CONVERSION_RECORD, json.dumps(record, indent=2, sort_keys=True) + "\n")
    return record

