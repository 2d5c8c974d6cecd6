"""BM25 within one candidate pool, with exactly rank_bm25's ``BM25Okapi`` semantics.

In:  the pool's documents as token lists and the query's tokens (see ``text.bm25_tokens``).
Out: one float64 score per pool document, bit-identical to
     ``rank_bm25.BM25Okapi(docs, k1, b, epsilon).get_scores(query)``.

BM25Okapi (rank_bm25 0.2.2): idf(t) = ln(N - df + 0.5) - ln(df + 0.5) over the pool's N
documents; a negative idf is replaced by ``epsilon * mean idf`` (mean over the pool's
vocabulary, summed in first-occurrence order, as rank_bm25 does); score(d) = sum over
query tokens (repeats count again, in query order) of
idf * tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl)). Query terms not in the pool add 0.
The per-document arithmetic is the same sequence of float64 operations as rank_bm25's,
vectorised over documents instead of looping over per-document dicts.
Edge cases rank_bm25 does not handle: an empty pool gives an empty array; a pool whose
documents are all empty (avgdl = 0, where rank_bm25 divides by zero) scores 0 everywhere.
"""
from __future__ import annotations

import math

import numpy as np


def bm25okapi_scores(docs: list[list[str]], query: list[str], k1: float, b: float, epsilon: float) -> np.ndarray:
    """BM25Okapi score of each document of ``docs`` for ``query`` (float64, pool order)."""
    n = len(docs)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    total = 0
    df: dict[str, int] = {}
    for doc in docs:
        total += len(doc)
        for w in dict.fromkeys(doc):  # first-occurrence order, like rank_bm25's per-doc dict
            df[w] = df.get(w, 0) + 1
    score = np.zeros(n)
    if total == 0 or not query:
        return score
    avgdl = total / n
    idf: dict[str, float] = {}
    idf_sum = 0
    negative = []
    for w, f in df.items():
        v = math.log(n - f + 0.5) - math.log(f + 0.5)
        idf[w] = v
        idf_sum += v
        if v < 0:
            negative.append(w)
    eps = epsilon * (idf_sum / len(idf))
    for w in negative:
        idf[w] = eps
    doc_len = np.array([len(d) for d in docs])
    terms = [q for q in dict.fromkeys(query) if q in idf]
    if not terms:
        return score
    col = {t: j for j, t in enumerate(terms)}
    tf = np.zeros((len(terms), n), dtype=np.int64)
    for i, doc in enumerate(docs):
        for w in doc:
            j = col.get(w)
            if j is not None:
                tf[j, i] += 1
    for q in query:
        j = col.get(q)
        if j is None:
            continue
        q_freq = tf[j]
        score += (idf[q] or 0) * (q_freq * (k1 + 1) / (q_freq + k1 * (1 - b + b * doc_len / avgdl)))
    return score
