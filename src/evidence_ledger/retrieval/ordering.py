"""Deterministic orderings of a scored candidate pool.

In:  a pool (unit ids in pool order) and one score per unit.
Out: ORDERING rows: the unit ids sorted by score (descending), then pool position
     (ascending), then unit id, with their scores and pool positions.

``order_pools_bm25`` scores each pool with rank_bm25 BM25Okapi semantics
(:mod:`.pool_bm25`), query = the claim, documents = the unit texts (with their context:
the same text a reader of the unit sees, see ``unit_bm25_text``).
"""
from __future__ import annotations

import math

from tqdm import tqdm

from .pool_bm25 import bm25okapi_scores
from .text import bm25_tokens


def order_pool(unit_ids: list[str], scores) -> list[int]:
    """Pool positions in ranked order: score desc, then pool position, then unit id.

    Raises ValueError on a NaN score (it has no place in a total order) or when the
    lengths differ.
    """
    scores = [float(s) for s in scores]
    if len(scores) != len(unit_ids):
        raise ValueError(f"{len(unit_ids)} units but {len(scores)} scores")
    if any(math.isnan(s) for s in scores):
        raise ValueError("NaN score in pool; cannot order it")
    return sorted(range(len(unit_ids)), key=lambda i: (-scores[i], i, unit_ids[i]))


def ordering_row(dataset: str, claim_id: str, source: str, unit_ids: list[str], scores, model: str) -> dict:
    """An ORDERING row for one pool scored by ``source``."""
    scores = [float(s) for s in scores]
    order = order_pool(unit_ids, scores)
    return {"dataset": dataset, "claim_id": claim_id, "source": source,
            "unit_ids": [unit_ids[i] for i in order], "scores": [scores[i] for i in order],
            "pool_positions": order, "model": model}


def unit_bm25_text(text: str, context: str) -> str:
    """The text of a unit that within-pool BM25 indexes: its context, then its text."""
    return f"{context}\n{text}" if context else text


def order_pools_bm25(pools: list[dict], claims: dict[str, str], unit_text: dict[str, str],
                     k1: float, b: float, epsilon: float, show_progress: bool = False) -> list[dict]:
    """ORDERING rows (source ``bm25``) for POOLS rows; ``claims`` maps claim id -> claim text,
    ``unit_text`` maps unit id -> indexed text (``unit_bm25_text``)."""
    model = f"rank_bm25.BM25Okapi(k1={k1},b={b},epsilon={epsilon}) within pool"
    rows = []
    for p in tqdm(pools, desc="order bm25", disable=not show_progress, mininterval=10):
        uids = list(p["unit_ids"])
        docs = [bm25_tokens(unit_text[u]) for u in uids]
        scores = bm25okapi_scores(docs, bm25_tokens(claims[p["claim_id"]]), k1, b, epsilon)
        rows.append(ordering_row(p["dataset"], p["claim_id"], "bm25", uids, scores, model))
    return rows
