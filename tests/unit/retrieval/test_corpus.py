"""Corpus BM25 index (bm25s): save, memory-mapped load, deterministic top-k, retrieval misses."""
import numpy as np
import pytest

from support.defaults import CORPUS_BM25

from evidence_ledger.retrieval.corpus import (build_corpus_index, load_corpus_index, retrieve_for_claims,
                                              retrieve_top_k, top_k_indices)
from evidence_ledger.retrieval.text import bm25_tokens

DOCS = {
    "Velmora": ("Velmora", "Velmora is a town on the Lirren River. It has 4000 inhabitants."),
    "Lirren_River": ("Lirren River", "The Lirren River flows north into the sea."),
    "Ann_Falk": ("Ann Falk", "Ann Falk was born in 1932 in Daskirk. She is a painter."),
    "Daskirk": ("Daskirk", "Daskirk is a village known for salt mining."),
}


@pytest.fixture
def index(tmp_path):
    ids = list(DOCS)
    build_corpus_index(ids, [DOCS[i][0] for i in ids], [DOCS[i][1] for i in ids], tmp_path / "ix", **CORPUS_BM25)
    return load_corpus_index(tmp_path / "ix", mmap=True)


def test_tokens_keep_digits_and_drop_stop_words():
    assert bm25_tokens("Ann was born in 1932, in the Town of X.") == ["ann", "born", "1932", "town", "x"]


def test_loaded_index_is_memory_mapped_and_retrieves_the_matching_page(index):
    assert isinstance(index.retriever.scores["data"], np.memmap)
    assert index.meta["n_docs"] == 4 and index.meta["method"] == "lucene"
    ids, scores = retrieve_top_k(index, "Ann Falk was born in 1932.", 2)
    assert ids[0] == "Ann_Falk"
    assert scores == sorted(scores, reverse=True)


def test_scores_equal_bm25s_own_scoring_including_repeated_terms(index):
    for query in ["Velmora river", "Lirren River flows north river", "painter 1932 Daskirk salt", "zzz"]:
        ids = index.query_token_ids(query)
        expected = index.retriever.get_scores_from_ids(ids.tolist()) if ids.size else np.zeros(4, np.float32)
        assert np.array_equal(index.scores(query), expected)


def test_documents_without_a_query_term_are_not_retrieved(index):
    ids, _ = retrieve_top_k(index, "painter", 5)
    assert ids == ["Ann_Falk"]
    assert retrieve_top_k(index, "the of and", 5) == ([], [])


def test_top_k_ties_go_to_the_lower_index():
    scores = np.array([1.0, 3.0, 1.0, 3.0, 0.0, 1.0], dtype=np.float32)
    assert top_k_indices(scores, 3).tolist() == [1, 3, 0]
    assert top_k_indices(scores, 10).tolist() == [1, 3, 0, 2, 5]


def test_retrieval_miss_names_the_gold_page_not_retrieved(index):
    claims = [{"dataset": "fever", "claim_id": "1", "claim": "Ann Falk is a painter."},
              {"dataset": "fever", "claim_id": "2", "claim": "Velmora lies on the Lirren River."}]
    gold = {"1": ["Ann_Falk", "Daskirk"], "2": ["Velmora"]}
    rows = retrieve_for_claims(index, claims, gold, {"1": 1}, k=1)
    assert rows[0]["doc_ids"] == ["Ann_Falk"]
    assert rows[0]["missed_gold_doc_ids"] == ["Daskirk"] and rows[0]["retrieval_miss"]
    assert rows[0]["unresolved_gold_units"] == 1
    assert rows[1]["retrieval_miss"] is False and rows[1]["unresolved_gold_units"] == 0


def test_duplicate_doc_ids_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="duplicate doc_id 'a'"):
        build_corpus_index(["a", "a"], ["t", "t"], ["x", "y"], tmp_path / "ix", **CORPUS_BM25)


def test_exact_ties_at_scale_follow_the_tie_rule_of_an_independent_sort(tmp_path):
    """A corpus where every page text appears under three doc ids (exact score ties) and
    sentences repeat across pages: for 1,000 claims, the top 5 are those of an independent
    sort of bm25s' own scores (``BM25.get_scores``) by (score descending, doc id ascending),
    positive scores only; ties decide a rank in most claims, so the rule is exercised."""
    import bm25s

    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(400)]
    sentences = [" ".join(rng.choice(words, size=8)) for _ in range(300)]
    texts = [". ".join(rng.choice(sentences, size=3)) for _ in range(400)]
    ids, titles, bodies = [], [], []
    for copy in range(3):
        for i in rng.permutation(len(texts)):
            ids.append(f"P{int(rng.integers(10**6)):06d}_{copy}_{i}")
            titles.append("")
            bodies.append(texts[i])
    build_corpus_index(ids, titles, bodies, tmp_path / "ix", **CORPUS_BM25)
    index = load_corpus_index(tmp_path / "ix", mmap=True)
    doc_ids = list(index.doc_ids)
    assert doc_ids == sorted(ids)
    claims = [" ".join(rng.choice(sentences[int(rng.integers(len(sentences)))].split(), size=4))
              for _ in range(1000)]
    tied = 0
    for claim in claims:
        got_ids, got_scores = retrieve_top_k(index, claim, 5)
        vocab = index.retriever.vocab_dict
        scores = index.retriever.get_scores([vocab[t] for t in bm25_tokens(claim) if t in vocab])
        expected = sorted((i for i in range(len(doc_ids)) if scores[i] > 0),
                          key=lambda i: (-float(scores[i]), doc_ids[i]))[:5]
        assert got_ids == [doc_ids[i] for i in expected], claim
        assert got_scores == [float(scores[i]) for i in expected]
        tied += len(set(got_scores)) < len(got_scores)
    assert tied > 500
