"""Deterministic pool orderings: score, then pool order, then unit id."""
import pytest

from support.defaults import POOL_BM25

from evidence_ledger.retrieval.ordering import order_pool, order_pools_bm25, ordering_row


def test_order_is_score_descending():
    assert order_pool(["a", "b", "c"], [0.1, 0.9, 0.5]) == [1, 2, 0]


def test_ties_are_broken_by_pool_position():
    # units 1 and 3 tie on 0.7, units 0 and 2 tie on 0.2: earlier pool position first
    assert order_pool(["d", "c", "b", "a"], [0.2, 0.7, 0.2, 0.7]) == [1, 3, 0, 2]


def test_nan_score_is_rejected():
    with pytest.raises(ValueError, match="NaN"):
        order_pool(["a", "b"], [0.1, float("nan")])


def test_length_mismatch_is_rejected():
    with pytest.raises(ValueError):
        order_pool(["a", "b"], [0.1])


def test_ordering_row_keeps_units_scores_and_positions_parallel():
    row = ordering_row("fever", "1", "bm25", ["x", "y", "z"], [1.0, 3.0, 2.0], "m")
    assert row["unit_ids"] == ["y", "z", "x"]
    assert row["scores"] == [3.0, 2.0, 1.0]
    assert row["pool_positions"] == [1, 2, 0]


def test_identical_units_keep_pool_order_and_runs_repeat():
    ids = ["P::2", "P::0", "Q::1", "Q::0", "R::0", "R::1"]
    pools = [{"dataset": "fever", "claim_id": "1", "unit_ids": ids}]
    text = {"P::2": "the river flows north", "P::0": "Ann was born in Velmora",
            "Q::1": "the river flows north", "Q::0": "a small town", "R::0": "salt mining village",
            "R::1": "glass company founded 2015"}
    claims = {"1": "Which river flows north?"}
    first = order_pools_bm25(pools, claims, text, **POOL_BM25)
    second = order_pools_bm25(pools, claims, text, **POOL_BM25)
    assert first == second
    row = first[0]
    # P::2 and Q::1 have the same text, hence the same positive score: pool order decides
    assert row["unit_ids"][:2] == ["P::2", "Q::1"]
    assert row["scores"][0] == row["scores"][1] > 0
    # the other four score 0 and keep their pool order
    assert row["scores"][2:] == [0.0] * 4
    assert row["unit_ids"][2:] == ["P::0", "Q::0", "R::0", "R::1"]
