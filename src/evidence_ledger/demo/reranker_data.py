"""Training data of the demo reranker, read from the retrieval stage's corpus index and tables.

In:  a corpus index directory, CLAIMS tables of training splits, the UNITS table, the number
     of documents retrieved per claim and the pool settings of the retrieval stage.
Out: per claim with gold evidence, its gold passages, the other passages of its gold
     documents and its pool's passages from other documents (see
     :func:`reranker_training_examples`), plus every pool-kind passage of the corpus for
     self-supervised pseudo-queries. Passages are rendered as the retrieval stage renders
     them for its rerankers (``ordering.unit_bm25_text``).
"""
from __future__ import annotations

from ..retrieval import corpus, ordering, pools
from ..tables.ingest_readers import read_claims, read_units


def reranker_training_examples(index_dir, claims_paths, units_path, k: int, max_units: int, pool_kinds,
                               max_candidates: int = 30) -> tuple[list[dict], list[tuple[str, str, str]]]:
    """Training data for the demo reranker: (examples, corpus passages).

    Examples: each claim with gold evidence, its gold passages (positives), the other passages
    of its gold documents (``same_doc``) and the passages of its retrieved pool from other
    documents (``candidates``, pool order). Corpus passages: (doc id, context,
    passage) of every pool-kind unit, in document order, for self-supervised pseudo-queries."""
    claims = read_claims(claims_paths)
    claims = claims[[any(len(g) for g in (gs if gs is not None else [])) for gs in claims["evidence_groups"]]]
    index = corpus.load_corpus_index(index_dir, mmap=True)
    units_all = read_units(units_path, columns=["unit_id", "doc_id", "kind", "position", "text", "context"])
    passage = {u: ordering.unit_bm25_text(t, c) for u, t, c in
               zip(units_all["unit_id"], units_all["text"], units_all["context"])}
    by_doc = pools.units_by_document(units_all, pool_kinds)
    doc_of = dict(zip(units_all["unit_id"], units_all["doc_id"]))
    examples = []
    for c in claims.itertuples(index=False):
        gold = [u for g in c.evidence_groups for u in g if u in passage]
        gold = list(dict.fromkeys(gold))
        doc_ids, _ = corpus.retrieve_top_k(index, c.claim, k)
        pool = pools.build_pool(doc_ids, by_doc, max_units)["unit_ids"]
        gold_set = set(gold)
        gold_docs = {doc_of[u] for u in gold}
        same = [passage[u] for d in sorted(gold_docs) for u in by_doc.get(d, []) if u not in gold_set]
        cands = [passage[u] for u in pool if u not in gold_set and doc_of[u] not in gold_docs][:max_candidates]
        examples.append({"claim": c.claim, "positives": [passage[u] for u in gold], "same_doc": same,
                         "candidates": cands})
    ctx = dict(zip(units_all["unit_id"], units_all["context"]))
    corpus_passages = [(d, ctx[u], passage[u]) for d in sorted(by_doc) for u in by_doc[d]]
    return examples, corpus_passages
