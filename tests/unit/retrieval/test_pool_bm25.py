"""Within-pool BM25 equals rank_bm25's BM25Okapi exactly (scores and order)."""
import random

import numpy as np
from rank_bm25 import BM25Okapi

from support.defaults import POOL_BM25

from support.defaults import POOL_BM25

from evidence_ledger.retrieval.ordering import order_pool
from evidence_ledger.retrieval.pool_bm25 import bm25okapi_scores


def random_pool(rng: random.Random, vocab):
    n = rng.randint(1, 60)
    docs = [[rng.choice(vocab) for _ in range(rng.randint(0, 20))] for _ in range(n)]
    if not any(docs):
        docs[0] = [vocab[0]]
    query = [rng.choice(vocab + ["absent"]) for _ in range(rng.randint(1, 10))]
    return docs, query


def test_scores_bit_identical_to_rank_bm25_on_random_pools():
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(40)]
    for _ in range(300):
        docs, query = random_pool(rng, vocab)
        expected = BM25Okapi(docs, **POOL_BM25).get_scores(query)
        got = bm25okapi_scores(docs, query, **POOL_BM25)
        assert np.array_equal(expected, got)
        assert order_pool([str(i) for i in range(len(docs))], got) == \
            sorted(range(len(docs)), key=lambda i: (-expected[i], i))


def test_non_default_parameters_match_rank_bm25():
    rng = random.Random(3)
    docs, query = random_pool(rng, ["a", "b", "c", "d"])
    expected = BM25Okapi(docs, k1=0.9, b=0.4, epsilon=0.5).get_scores(query)
    assert np.array_equal(bm25okapi_scores(docs, query, k1=0.9, b=0.4, epsilon=0.5), expected)


def test_term_in_most_documents_gets_epsilon_floor_like_rank_bm25():
    # "x" occurs in 3 of 4 documents: ln(1.5) - ln(3.5) < 0, so its idf is eps * mean idf
    docs = [["x", "y"], ["x"], ["x", "z"], ["w"]]
    model = BM25Okapi(docs, **POOL_BM25)
    assert model.idf["x"] == model.epsilon * model.average_idf
    assert np.array_equal(bm25okapi_scores(docs, ["x"], **POOL_BM25), model.get_scores(["x"]))


def test_repeated_query_token_counts_twice():
    docs = [["a", "b"], ["b", "c"], ["c"]]
    once = bm25okapi_scores(docs, ["a"], **POOL_BM25)
    twice = bm25okapi_scores(docs, ["a", "a"], **POOL_BM25)
    assert twice[0] == 2 * once[0] and twice[0] > 0


def test_empty_pool_and_all_empty_documents_score_zero():
    assert bm25okapi_scores([], ["a"], **POOL_BM25).shape == (0,)
    assert bm25okapi_scores([[], []], ["a"], **POOL_BM25).tolist() == [0.0, 0.0]
    assert bm25okapi_scores([["a"], ["b"]], [], **POOL_BM25).tolist() == [0.0, 0.0]
