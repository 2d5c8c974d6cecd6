"""The demo reranker: built locally, loaded through FlagReranker, used to order pools."""
import hashlib

from support.defaults import reranker_spec

from evidence_ledger.demo.reranker import build_tiny_reranker, training_groups
from evidence_ledger.retrieval.reranker import load_reranker, order_pools_reranker, reranker_files, reranker_identity

EXAMPLES = [
    {"claim": f"Town {i} lies on river {i}.", "positives": [f"Town {i} is on the river {i}."],
     "same_doc": [f"Town {i} has {i}00 people.", f"Town {i} was founded in 19{i}0."],
     "candidates": [f"Person {i} is a painter.", f"Lake {i} is deep.", f"Band {i} plays rock."]}
    for i in range(1, 7)
]


def test_training_groups_take_half_the_negatives_from_the_gold_page():
    groups = training_groups(EXAMPLES, negatives=4, seed=0)
    assert len(groups) == 6
    claim, pos, negs = groups[0]
    assert claim == "Town 1 lies on river 1." and pos == "Town 1 is on the river 1."
    assert len(negs) == 4 and sum(n in EXAMPLES[0]["same_doc"] for n in negs) == 2
    assert training_groups(EXAMPLES, negatives=4, seed=0) == groups
    assert training_groups([{"claim": "c", "positives": ["p"], "same_doc": [], "candidates": []}], 4, 0) == []


def test_built_reranker_loads_through_flagreranker_orders_pools_and_rebuilds_identically(tmp_path):
    settings = dict(steps=3, batch_claims=2, negatives=3, hidden_size=32, heads=2, vocab_size=120, seed=1)
    build_tiny_reranker(EXAMPLES, tmp_path / "a", **settings)
    build_tiny_reranker(EXAMPLES, tmp_path / "b", **settings)
    weights = [hashlib.sha256((tmp_path / d / "model.safetensors").read_bytes()).hexdigest() for d in "ab"]
    assert weights[0] == weights[1]
    spec = reranker_spec(local_dir=str(tmp_path / "a"))
    identity = reranker_identity(spec, reranker_files(spec))
    assert identity == f"local:a sha256:{weights[0][:16]}"
    model, identity = load_reranker(reranker_spec(local_dir=str(tmp_path / "a"), batch_size=4))
    passages = {"u1": "Town 1 is on the river 1.", "u2": "Lake 1 is deep.", "u3": "Band 2 plays rock."}
    pools = [{"dataset": "fever", "claim_id": "1", "unit_ids": ["u1", "u2", "u3"]},
             {"dataset": "fever", "claim_id": "2", "unit_ids": []}]
    rows = order_pools_reranker(pools, {"1": "Town 1 lies on river 1.", "2": "x"}, passages, model, identity,
                                claims_per_call=1)
    again = order_pools_reranker(pools, {"1": "Town 1 lies on river 1.", "2": "x"}, passages, model, identity,
                                 claims_per_call=2)
    assert rows == again
    assert sorted(rows[0]["unit_ids"]) == ["u1", "u2", "u3"] and rows[0]["source"] == "bge"
    assert rows[0]["scores"] == sorted(rows[0]["scores"], reverse=True)
    assert rows[1]["unit_ids"] == [] and rows[0]["model"] == identity


def test_pseudo_queries_are_word_subsets_with_same_and_other_document_negatives():
    from evidence_ledger.demo.reranker import pseudo_query_groups

    passages = [(d, d.title(), f"{d} sentence {i} with words alpha beta gamma") for d in ("a", "b", "c") for i in range(3)]
    groups = pseudo_query_groups(passages, n=20, negatives=4, seed=3)
    assert len(groups) == 20 and groups == pseudo_query_groups(passages, n=20, negatives=4, seed=3)
    by_text = {p[2]: p[0] for p in passages}
    for query, pos, negs in groups:
        words = pos.split()
        assert all(w in words or w == by_text[pos].title() for w in query.split())
        assert len(negs) == 4 and sum(by_text[n] == by_text[pos] for n in negs) == 2 and pos not in negs
    assert pseudo_query_groups(passages[:3], n=5, negatives=2, seed=0) == []  # one document: no negatives
