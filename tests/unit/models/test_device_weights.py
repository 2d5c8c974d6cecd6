"""device_weights: a model's weights read from its safetensors files a chunk at a time into their
device tensors equal what ``from_pretrained`` loaded, names the files lack are moved as loaded,
and the host holds one chunk, not the whole file."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from evidence_ledger.demo.reranker import build_tiny_reranker
from evidence_ledger.models.device_weights import move_weights, row_ranges

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = [{"claim": f"Town {i} lies on river {i}.", "positives": [f"Town {i} is on the river {i}."],
             "same_doc": [f"Town {i} has {i}00 people."], "candidates": [f"Lake {i} is deep."]} for i in range(1, 4)]


def test_row_ranges_cover_every_row_once_within_the_chunk_and_at_least_one_row_each():
    assert row_ranges((10, 4), itemsize=4, chunk_bytes=48) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert row_ranges((3, 100), itemsize=4, chunk_bytes=10) == [(0, 1), (1, 2), (2, 3)]  # a row over the chunk
    assert row_ranges((5,), itemsize=2, chunk_bytes=1 << 20) == [(0, 5)]
    assert row_ranges((), itemsize=4) == [(0, 1)]
    assert row_ranges((0, 8), itemsize=4) == []


def test_scalars_and_empty_tensors_are_read_as_stored(tmp_path):
    from evidence_ledger.models.device_weights import read_to_device, stored_tensors

    save_file({"s": torch.tensor(2.5), "e": torch.zeros(0, 3), "v": torch.arange(7.0)}, tmp_path / "t.safetensors")
    stored = stored_tensors([tmp_path / "t.safetensors"])
    assert {n: s.shape for n, s in stored.items()} == {"s": (), "e": (0, 3), "v": (7,)}
    read = {n: read_to_device(s, n, "cpu", torch.float64, chunk_bytes=16) for n, s in stored.items()}
    assert read["s"].item() == 2.5 and read["e"].shape == (0, 3) and read["v"].tolist() == list(range(7))
    assert {t.dtype for t in read.values()} == {torch.float64}


def _tiny_reranker(directory: Path) -> Path:
    build_tiny_reranker(EXAMPLES, directory, steps=1, batch_claims=2, negatives=1, hidden_size=32, heads=2,
                        vocab_size=120, seed=1)
    return directory


def _loaded(directory: Path):
    from transformers import AutoModelForSequenceClassification

    return AutoModelForSequenceClassification.from_pretrained(directory)


def test_weights_read_in_small_chunks_equal_the_loaded_model_cast_to_the_dtype(tmp_path):
    directory = _tiny_reranker(tmp_path / "rr")
    model = _loaded(directory)
    done = move_weights(model, [directory / "model.safetensors"], "cpu", torch.float16, chunk_bytes=256)
    stored = set(load_file(directory / "model.safetensors"))
    assert set(done["read"]) == stored  # every stored tensor read from the file
    assert set(done["moved"]) == {n for n, _ in model.named_buffers()} - stored  # non-persistent buffers
    reference = _loaded(directory).to(torch.float16)
    ours, theirs = model.state_dict(), reference.state_dict()
    assert list(ours) == list(theirs)
    assert all(torch.equal(ours[k], theirs[k]) and ours[k].dtype == theirs[k].dtype for k in ours)
    assert {t.dtype for t in model.buffers()} == {t.dtype for t in reference.buffers()}  # integer buffers not cast


def test_a_tensor_the_files_hold_under_another_name_is_moved_as_loaded(tmp_path):
    directory = _tiny_reranker(tmp_path / "rr")
    model = _loaded(directory)
    tensors = load_file(directory / "model.safetensors")
    renamed = "classifier.out_proj.weight"
    tensors["legacy." + renamed] = tensors.pop(renamed)
    save_file(tensors, tmp_path / "renamed.safetensors", metadata={"format": "pt"})
    done = move_weights(model, [tmp_path / "renamed.safetensors"], "cpu", torch.float32, chunk_bytes=1024)
    assert renamed in done["moved"] and renamed not in done["read"]
    assert torch.equal(model.state_dict()[renamed], _loaded(directory).state_dict()[renamed])


CHILD = """
import json, sys, torch
from pathlib import Path
from safetensors import safe_open
from evidence_ledger.models.device_weights import StoredTensor, read_to_device
from evidence_ledger.memory.peak_rss import own_peak_rss_kib
path, how = sys.argv[1], sys.argv[2]
before = own_peak_rss_kib()
if how == "chunks":
    with safe_open(path, framework="pt", device="cpu") as f:
        shape = tuple(f.get_slice("w").get_shape())
    out = read_to_device(StoredTensor(Path(path), shape, 4), "w", "cpu", torch.float16,
                         chunk_bytes=8 << 20)
else:  # the mapped tensor moved whole, as Module.to does
    with safe_open(path, framework="pt", device="cpu") as f:
        out = f.get_tensor("w").to(torch.float16)
print(json.dumps({"grew_mib": (own_peak_rss_kib() - before) / 1024, "sum": float(out.float().sum())}))
"""


def _grew(path: Path, how: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), how], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "src"), "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_reading_a_256_mib_tensor_in_8_mib_chunks_holds_its_result_and_about_one_chunk(tmp_path):
    path = tmp_path / "w.safetensors"
    save_file({"w": torch.arange(64 * 2**20, dtype=torch.float32).reshape(2**14, 2**12) % 1000}, path)
    chunked, whole = _grew(path, "chunks"), _grew(path, "whole")
    assert chunked["sum"] == whole["sum"]
    assert chunked["grew_mib"] < 128 + 64  # the float16 result (128 MiB) and a few chunks, not the file
    assert whole["grew_mib"] > 256 + 64  # the mapped file's pages stay while the copy is made
