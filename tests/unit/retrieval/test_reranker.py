"""The reranker refuses a pickle-only directory unless the config opts in."""
import hashlib
from pathlib import Path

import pytest

from evidence_ledger.demo.reranker import build_tiny_reranker
from evidence_ledger.retrieval.reranker import RerankerSpec, load_reranker, resolve_model_dir, score_pairs
from support.pickle_weights import to_pickle_only

EXAMPLES = [{"claim": f"Town {i} lies on river {i}.", "positives": [f"Town {i} is on the river {i}."],
             "same_doc": [f"Town {i} has {i}00 people."], "candidates": [f"Lake {i} is deep."]} for i in range(1, 4)]


def test_pickle_only_reranker_directory_is_refused_by_default_and_loads_when_opted_in(tmp_path):
    build_tiny_reranker(EXAMPLES, tmp_path / "rr", steps=1, batch_claims=2, negatives=1, hidden_size=32, heads=2,
                        vocab_size=120, seed=1)
    directory = str(to_pickle_only(tmp_path / "rr"))
    with pytest.raises(ValueError, match=r"pickle weights \(pytorch_model\.bin.*retrieval\.reranker\.allow_pickle_weights"):
        resolve_model_dir(RerankerSpec(local_dir=directory))
    with pytest.raises(ValueError, match="allow_pickle_weights"):
        load_reranker(RerankerSpec(local_dir=directory, batch_size=2))
    model, identity = load_reranker(RerankerSpec(local_dir=directory, batch_size=2, allow_pickle_weights=True))
    assert identity.startswith("local:rr sha256:")
    assert len(score_pairs(model, [("Town 1 lies on river 1.", "Lake 1 is deep.")])) == 1


def test_a_decoy_safetensors_file_beside_pickle_weights_neither_passes_nor_enters_the_identity(tmp_path):
    build_tiny_reranker(EXAMPLES, tmp_path / "rr", steps=1, batch_claims=2, negatives=1, hidden_size=32, heads=2,
                        vocab_size=120, seed=1)
    directory = to_pickle_only(tmp_path / "rr")
    (Path(directory) / "foo.safetensors").write_bytes(b"not the weights transformers loads")
    with pytest.raises(ValueError, match=r"retrieval\.reranker\.allow_pickle_weights"):
        resolve_model_dir(RerankerSpec(local_dir=str(directory)))
    _, identity = resolve_model_dir(RerankerSpec(local_dir=str(directory), allow_pickle_weights=True))
    loaded = hashlib.sha256((Path(directory) / "pytorch_model.bin").read_bytes()).hexdigest()
    assert identity == f"local:rr sha256:{loaded[:16]}"
