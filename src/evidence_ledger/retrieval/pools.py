"""Candidate pools: the units of each claim's retrieved documents, capped, in pool order.

In:  RETRIEVED rows (ranked doc ids per claim) and a units frame (UNITS columns
     unit_id, doc_id, kind, position) restricted to the pool kinds.
Out: POOLS rows: per claim the unit ids in pool order (document rank, then the unit's
     position in its document, then unit id), at most ``max_units`` of them.

Units whose kind is not a pool kind (FEVEROUS ``title`` / ``section`` units are context,
not evidence candidates) are excluded before the cap. SciFact pools are the sentences of
the retrieved abstracts.
"""
from __future__ import annotations

from collections import defaultdict

import pandas as pd


def gold_documents(claims: pd.DataFrame, unit_doc: dict[str, str]) -> tuple[dict[str, list[str]], dict[str, int]]:
    """Gold documents per claim and the count of gold unit ids that do not resolve.

    A claim's gold documents are the documents of all units in its gold evidence groups
    plus (SciFact) the ``doc_id`` of each entry of ``gold_abstracts``. ``unit_doc`` maps
    unit id -> doc id. Returns ``(gold_docs, unresolved)`` keyed by claim id.
    """
    gold_docs: dict[str, list[str]] = {}
    unresolved: dict[str, int] = {}
    for row in claims.itertuples(index=False):
        docs = set()
        missing = 0
        for group in row.evidence_groups if row.evidence_groups is not None else []:
            for uid in group:
                doc = unit_doc.get(uid)
                if doc is None:
                    missing += 1
                else:
                    docs.add(doc)
        for ga in row.gold_abstracts if row.gold_abstracts is not None else []:
            docs.add(str(ga["doc_id"]))
        gold_docs[row.claim_id] = sorted(docs)
        unresolved[row.claim_id] = missing
    return gold_docs, unresolved


def units_by_document(units: pd.DataFrame, pool_kinds) -> dict[str, list[str]]:
    """doc id -> its pool-kind unit ids in document order (position, then unit id)."""
    keep = units[units["kind"].isin(list(pool_kinds))]
    keep = keep.sort_values(["doc_id", "position", "unit_id"], kind="mergesort")
    by_doc: dict[str, list[str]] = defaultdict(list)
    for doc, uid in zip(keep["doc_id"], keep["unit_id"]):
        by_doc[doc].append(uid)
    return dict(by_doc)


def build_pool(doc_ids: list[str], by_doc: dict[str, list[str]], max_units: int) -> dict:
    """One claim's pool: the units of ``doc_ids`` (in rank order) cut at ``max_units``.

    Returns ``{"unit_ids", "doc_ids", "units_available", "capped"}``; a retrieved document
    with no pool units contributes nothing.
    """
    unit_ids: list[str] = []
    unit_docs: list[str] = []
    available = 0
    seen = set()
    for doc in doc_ids:
        for uid in by_doc.get(doc, []):
            if uid in seen:  # a unit belongs to one document; guard against a doc retrieved twice
                continue
            seen.add(uid)
            available += 1
            if len(unit_ids) < max_units:
                unit_ids.append(uid)
                unit_docs.append(doc)
    return {"unit_ids": unit_ids, "doc_ids": unit_docs, "units_available": available,
            "capped": available > max_units}


def build_pools(retrieved: pd.DataFrame, units: pd.DataFrame, max_units: int, pool_kinds) -> list[dict]:
    """POOLS rows for every RETRIEVED row (same row order)."""
    if max_units < 1:
        raise ValueError(f"max_units must be >= 1, got {max_units}")
    by_doc = units_by_document(units, pool_kinds)
    rows = []
    for r in retrieved.itertuples(index=False):
        pool = build_pool(list(r.doc_ids), by_doc, max_units)
        rows.append({"dataset": r.dataset, "claim_id": r.claim_id, **pool})
    return rows
