"""File-level entry points of the retrieval rules (read tables, call the pure functions, write).

Each function here is what one ``scripts/<rule>.py`` calls:
  index_corpus        DOCUMENTS -> index directory
  retrieve            index + CLAIMS tables + UNITS -> RETRIEVED
  build_pools         RETRIEVED + UNITS -> POOLS
  order_bm25          POOLS + RETRIEVED + UNITS -> ORDERING (bm25)
  order_bge           POOLS + RETRIEVED + UNITS + reranker -> ORDERING (bge)
"""
from __future__ import annotations

import logging

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .. import tables
from ..tables.ingest import CLAIMS, DOCUMENTS, UNITS
from ..tables.retrieval import ORDERING, POOLS, RETRIEVED
from . import corpus, ordering, pools, reranker

log = logging.getLogger(__name__)


def read_units(path, unit_ids=None, doc_ids=None, columns=None) -> pd.DataFrame:
    """UNITS rows, optionally only those whose unit id / doc id is in the given collections."""
    table = tables.read_table(path, UNITS, columns=columns)
    if unit_ids is not None:
        table = table.filter(pc.is_in(table["unit_id"], value_set=pa.array(sorted(set(unit_ids)), pa.string())))
    if doc_ids is not None:
        table = table.filter(pc.is_in(table["doc_id"], value_set=pa.array(sorted(set(doc_ids)), pa.string())))
    return table.to_pandas()


def read_claims(paths) -> pd.DataFrame:
    """The union of CLAIMS tables, first occurrence of each claim id kept (in file order).

    The same claim id with a different claim text in two tables raises ValueError.
    """
    frames = [tables.read_frame(p, CLAIMS) for p in paths]
    claims = pd.concat(frames, ignore_index=True) if frames else CLAIMS.empty().to_pandas()
    first = claims.drop_duplicates("claim_id", keep="first")
    merged = claims.merge(first[["claim_id", "claim"]], on="claim_id", suffixes=("", "_first"))
    clash = merged[merged["claim"] != merged["claim_first"]]
    if len(clash):
        cid = clash["claim_id"].iloc[0]
        raise ValueError(f"claim {cid!r} has different texts in {', '.join(map(str, paths))}")
    return first.reset_index(drop=True)


def index_corpus(documents_path, index_dir, method="lucene", k1=1.5, b=0.75) -> dict:
    docs = tables.read_frame(documents_path, DOCUMENTS, columns=["doc_id", "title", "text"])
    log.info("indexing %d documents (bm25s %s, k1=%s, b=%s)", len(docs), method, k1, b)
    meta = corpus.build_corpus_index(docs["doc_id"], docs["title"], docs["text"], index_dir,
                                     k1=k1, b=b, method=method, show_progress=True)
    log.info("index: %s", meta)
    return meta


def _gold(claims: pd.DataFrame, units_path):
    gold_ids = {u for groups in claims["evidence_groups"] for g in (groups if groups is not None else []) for u in g}
    u = read_units(units_path, unit_ids=gold_ids, columns=["unit_id", "doc_id"])
    return pools.gold_documents(claims, dict(zip(u["unit_id"], u["doc_id"])))


def retrieve(index_dir, claims_paths, units_path, out_path, k: int) -> pd.DataFrame:
    claims = read_claims(claims_paths)
    index = corpus.load_corpus_index(index_dir, mmap=True)
    gold_docs, unresolved = _gold(claims, units_path)
    log.info("retrieving top %d of %d documents for %d claims", k, len(index.doc_ids), len(claims))
    rows = corpus.retrieve_for_claims(index, claims[["dataset", "claim_id", "claim"]].to_dict("records"),
                                      gold_docs, unresolved, k, show_progress=True)
    table = RETRIEVED.from_rows(rows)
    tables.write_table(table, out_path, RETRIEVED)
    misses = sum(r["retrieval_miss"] for r in rows)
    log.info("retrieval misses: %d of %d claims", misses, len(rows))
    return table.to_pandas()


def build_pools(retrieved_path, units_path, out_path, max_units: int, pool_kinds) -> list[dict]:
    retrieved = tables.read_frame(retrieved_path, RETRIEVED)
    docs = {d for ds in retrieved["doc_ids"] for d in ds}
    units = read_units(units_path, doc_ids=docs, columns=["unit_id", "doc_id", "kind", "position"])
    rows = pools.build_pools(retrieved, units, max_units, pool_kinds)
    tables.write_table(POOLS.from_rows(rows), out_path, POOLS)
    log.info("pools: %d claims, %d capped at %d units", len(rows), sum(r["capped"] for r in rows), max_units)
    return rows


def _pool_inputs(pools_path, retrieved_path, units_path):
    pool_rows = tables.read_frame(pools_path, POOLS).to_dict("records")
    retrieved = tables.read_frame(retrieved_path, RETRIEVED, columns=["claim_id", "claim"])
    claims = dict(zip(retrieved["claim_id"], retrieved["claim"]))
    ids = {u for p in pool_rows for u in p["unit_ids"]}
    units = read_units(units_path, unit_ids=ids, columns=["unit_id", "text", "context"])
    passages = {u: ordering.unit_bm25_text(t, c) for u, t, c in zip(units["unit_id"], units["text"], units["context"])}
    return pool_rows, claims, passages


def order_bm25(pools_path, retrieved_path, units_path, out_path, k1=1.5, b=0.75, epsilon=0.25) -> list[dict]:
    pool_rows, claims, passages = _pool_inputs(pools_path, retrieved_path, units_path)
    rows = ordering.order_pools_bm25(pool_rows, claims, passages, k1, b, epsilon, show_progress=True)
    tables.write_table(ORDERING.from_rows(rows), out_path, ORDERING)
    log.info("bm25 orderings: %d pools", len(rows))
    return rows


def order_bge(pools_path, retrieved_path, units_path, out_path, spec: reranker.RerankerSpec,
              claims_per_call: int = 64) -> list[dict]:
    pool_rows, claims, passages = _pool_inputs(pools_path, retrieved_path, units_path)
    model, identity = reranker.load_reranker(spec)
    rows = reranker.order_pools_reranker(pool_rows, claims, passages, model, identity,
                                         claims_per_call=claims_per_call, show_progress=True)
    tables.write_table(ORDERING.from_rows(rows), out_path, ORDERING)
    log.info("reranker orderings (%s): %d pools", identity, len(rows))
    return rows
