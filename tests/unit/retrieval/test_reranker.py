"""The reranker refuses a pickle-only directory unless the config opts in, and its weights are
float32 on the CPU, float16 on a GPU when ``fp16`` is set."""
import hashlib
from pathlib import Path

import pytest
import torch

from support.defaults import reranker_spec

from evidence_ledger.demo.reranker import build_tiny_reranker
from evidence_ledger.retrieval.reranker import load_reranker, reranker_files, reranker_identity, score_pairs
from support.pickle_weights import to_pickle_only

EXAMPLES = [{"claim": f"Town {i} lies on river {i}.", "positives": [f"Town {i} is on the river {i}."],
             "same_doc": [f"Town {i} has {i}00 people."], "candidates": [f"Lake {i} is deep."]} for i in range(1, 4)]


def test_pickle_only_reranker_directory_is_refused_by_default_and_loads_when_opted_in(tmp_path):
    build_tiny_reranker(EXAMPLES, tmp_path / "rr", steps=1, batch_claims=2, negatives=1, hidden_size=32, heads=2,
                        vocab_size=120, seed=1)
    directory = str(to_pickle_only(tmp_path / "rr"))
    with pytest.raises(ValueError, match=r"pickle weights \(pytorch_model\.bin.*retrieval\.reranker\.allow_pickle_weights"):
        reranker_files(reranker_spec(local_dir=directory))
    with pytest.raises(ValueError, match="allow_pickle_weights"):
        load_reranker(reranker_spec(local_dir=directory, batch_size=2))
    model, identity = load_reranker(reranker_spec(local_dir=directory, batch_size=2, allow_pickle_weights=True))
    assert identity.startswith("local:rr sha256:")
    assert len(score_pairs(model, [("Town 1 lies on river 1.", "Lake 1 is deep.")])) == 1


def test_a_decoy_safetensors_file_beside_pickle_weights_neither_passes_nor_enters_the_identity(tmp_path):
    build_tiny_reranker(EXAMPLES, tmp_path / "rr", steps=1, batch_claims=2, negatives=1, hidden_size=32, heads=2,
                        vocab_size=120, seed=1)
    directory = to_pickle_only(tmp_path / "rr")
    (Path(directory) / "foo.safetensors").write_bytes(b"not the weights transformers loads")
    with pytest.raises(ValueError, match=r"retrieval\.reranker\.allow_pickle_weights"):
        reranker_files(reranker_spec(local_dir=str(directory)))
    spec = reranker_spec(local_dir=str(directory), allow_pickle_weights=True)
    identity = reranker_identity(spec, reranker_files(spec))
    loaded = hashlib.sha256((Path(directory) / "pytorch_model.bin").read_bytes()).hexdigest()
    assert identity == f"local:rr sha256:{loaded[:16]}"


def _half_precision_copy(tmp_path) -> str:
    from transformers import AutoModelForSequenceClassification

    build_tiny_reranker(EXAMPLES, tmp_path / "rr", steps=1, batch_claims=2, negatives=1, hidden_size=32, heads=2,
                        vocab_size=120, seed=1)
    model = AutoModelForSequenceClassification.from_pretrained(tmp_path / "rr", dtype=torch.float16)
    assert next(model.parameters()).dtype == torch.float16
    model.save_pretrained(tmp_path / "rr", safe_serialization=True)
    return str(tmp_path / "rr")


def test_on_the_cpu_the_reranker_scores_in_float32_even_from_a_half_precision_checkpoint(tmp_path):
    directory = _half_precision_copy(tmp_path)
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: the reranker goes to cuda:0 (the next test)")
    model, _ = load_reranker(reranker_spec(local_dir=directory, batch_size=2, fp16=True))
    assert {(p.dtype, p.device.type) for p in model.model.parameters()} == {(torch.float32, "cpu")}
    assert len(score_pairs(model, [("Town 1 lies on river 1.", "Lake 1 is deep.")])) == 1


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_on_a_gpu_the_reranker_weights_are_half_precision_on_the_device_once_loaded(tmp_path):
    build_tiny_reranker(EXAMPLES, tmp_path / "rr", steps=1, batch_claims=2, negatives=1, hidden_size=32, heads=2,
                        vocab_size=120, seed=1)
    model, _ = load_reranker(reranker_spec(local_dir=str(tmp_path / "rr"), batch_size=2, fp16=True))
    assert {(p.dtype, p.device.type) for p in model.model.parameters()} == {(torch.float16, "cuda")}
    from transformers import AutoModelForSequenceClassification

    reference = AutoModelForSequenceClassification.from_pretrained(tmp_path / "rr").half().state_dict()
    assert all(torch.equal(t.cpu(), reference[k]) for k, t in model.model.state_dict().items())
    full, _ = load_reranker(reranker_spec(local_dir=str(tmp_path / "rr"), batch_size=2, fp16=False))
    assert {p.dtype for p in full.model.parameters()} == {torch.float32}
