"""Moving a loaded model's weights onto a device while the host holds one chunk of them at a time.

In:  a ``torch.nn.Module`` loaded by ``from_pretrained`` from safetensors files (its weights
     memory-mapped from them and not yet read), those files, a device and a dtype.
Out: the same module with every parameter and buffer on the device, the floating-point ones in
     the dtype; the names read from the files and the names moved as loaded.

Why: a tensor that ``from_pretrained`` maps from a safetensors file shares one mapping with
every other tensor of that file, and a page of the mapping, once read, stays in the process
until the whole mapping is released, after the last of those tensors. ``Module.to(device)``
therefore holds the whole weight file in the process's memory before the last weight has left
the host (clean page-cache pages, but counted in its RSS and in a job's memory accounting):
1,061 MiB for BAAI/bge-reranker-base. Here each tensor that the files hold under the module's
own name and shape is read in row chunks of at most ``chunk_bytes``, each chunk through its own
short-lived map of the file, copied into the tensor on the device and released, so the host
holds one chunk. The module's mapped weights are never read. A tensor the files do not hold
under that name and shape (a key ``from_pretrained`` renamed, a tied or newly initialised
weight, a non-persistent buffer) is moved as loaded with ``Tensor.to``.

Only the safetensors format is read this way: pickle weights are loaded in full by
``from_pretrained`` anyway (and only when the config opts in).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

CHUNK_BYTES = 64 * 2**20
# bytes an element of each safetensors dtype code (the format's own names); an unlisted code
# counts 8, so a chunk is never larger than asked
STORED_ITEMSIZE = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2,
                   "U16": 2, "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}


@dataclass(frozen=True)
class StoredTensor:
    """Where a tensor lies: its safetensors file, its stored shape and bytes an element."""

    path: Path
    shape: tuple[int, ...]
    itemsize: int


def stored_tensors(weight_files) -> dict[str, StoredTensor]:
    """Every tensor name of the safetensors ``weight_files`` -> its file and shape (headers only)."""
    from safetensors import safe_open

    out = {}
    for path in weight_files:
        with safe_open(str(path), framework="pt", device="cpu") as f:
            for name in f.keys():
                part = f.get_slice(name)
                out[name] = StoredTensor(Path(path), tuple(part.get_shape()), STORED_ITEMSIZE.get(part.get_dtype(), 8))
    return out


def row_ranges(shape: tuple[int, ...], itemsize: int, chunk_bytes: int = CHUNK_BYTES) -> list[tuple[int, int]]:
    """[start, stop) ranges of the first dimension of a tensor of ``shape``, each at most
    ``chunk_bytes`` of ``itemsize``-byte elements (one row at least); ``[(0, 1)]`` for a scalar."""
    if not shape:
        return [(0, 1)]
    row_bytes = itemsize * math.prod(shape[1:])
    per_chunk = max(1, chunk_bytes // max(1, row_bytes))
    return [(start, min(start + per_chunk, shape[0])) for start in range(0, shape[0], per_chunk)]


def read_to_device(stored: StoredTensor, name: str, device, dtype, chunk_bytes: int = CHUNK_BYTES):
    """Tensor ``name`` of ``stored.path`` as a new tensor on ``device`` in ``dtype``, read a row
    chunk (at most ``chunk_bytes`` as stored) at a time, each through a map of the file that is
    closed before the next."""
    import torch
    from safetensors import safe_open

    out = torch.empty(stored.shape, dtype=dtype, device=device)
    for start, stop in row_ranges(stored.shape, stored.itemsize, chunk_bytes):
        with safe_open(str(stored.path), framework="pt", device="cpu") as f:
            part = f.get_slice(name)
            part = part[start:stop] if stored.shape else part[...]
            if stored.shape:
                out[start:stop].copy_(part)
            else:
                out.copy_(part)
            del part
    return out


def move_weights(module, weight_files, device, dtype, chunk_bytes: int = CHUNK_BYTES) -> dict[str, list[str]]:
    """Put every parameter and buffer of ``module`` on ``device`` (floating point ones in ``dtype``),
    reading those that ``weight_files`` hold under the same name and shape from the files in
    chunks; returns ``{"read": names, "moved": names}``."""
    stored = stored_tensors(weight_files)
    done = {"read": [], "moved": []}
    tensors = [("param", n, t) for n, t in module.named_parameters()] + \
              [("buffer", n, t) for n, t in module.named_buffers()]
    for kind, name, tensor in tensors:
        target = dtype if tensor.is_floating_point() else tensor.dtype
        where = stored.get(name)
        if where is not None and where.shape == tuple(tensor.shape):
            new = read_to_device(where, name, device, target, chunk_bytes)
            done["read"].append(name)
        else:
            new = tensor.detach().to(device=device, dtype=target)
            done["moved"].append(name)
        if kind == "param":
            tensor.data = new
        else:
            owner, _, leaf = name.rpartition(".")
            module.get_submodule(owner)._buffers[leaf] = new
    return done
