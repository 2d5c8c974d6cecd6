"""The retrieval rules, one keyword-only function each (paths and plain values in, files out).

  index_corpus  DOCUMENTS -> bm25s index directory
  retrieve      index + CLAIMS tables + UNITS -> RETRIEVED
  build_pools   RETRIEVED + UNITS -> POOLS
  order_bm25    POOLS + RETRIEVED + UNITS -> ORDERING (bm25)
  order_bge     POOLS + RETRIEVED + UNITS + reranker -> ORDERING (bge)
"""
from __future__ import annotations

import logging

import pandas as pd

from .. import tables
from ..tables.ingest import DOCUMENTS
from ..tables.ingest_readers import read_claims, read_units
from ..tables.retrieval import ORDERING, POOLS, RETRIEVED
from . import corpus, ordering, pools
from .text import bm25_tokens
# the rule functions' path keywords (pools, ordering, reranker) shadow those module names inside them
from . import ordering as _ordering, pools as _pools, reranker as _reranker

log = logging.getLogger(__name__)


def index_corpus(*, documents, index, method: str, k1: float, b: float) -> dict:
    """Build the bm25s page/abstract index of the DOCUMENTS table ``documents`` in directory ``index``."""
    tables.check_table_file(documents, DOCUMENTS)
    log.info("indexing %s in batches (bm25s %s, k1=%s, b=%s)", documents, method, k1, b)
    meta = corpus.build_corpus_index_from_table(documents, index, k1=k1, b=b, method=method, show_progress=True)
    log.info("index: %s", meta)
    return meta


def _gold(claims: pd.DataFrame, units_path):
    gold_ids = {u for groups in claims["evidence_groups"] for g in (groups if groups is not None else []) for u in g}
    u = read_units(units_path, unit_ids=gold_ids, columns=["unit_id", "doc_id"])
    return _pools.gold_documents(claims, dict(zip(u["unit_id"], u["doc_id"])))


def retrieve(*, index, claims: list, units, retrieved, k: int) -> pd.DataFrame:
    """Top-``k`` documents of ``index`` for every claim of the CLAIMS tables ``claims`` -> RETRIEVED ``retrieved``."""
    claim_frame = read_claims(claims)
    terms = {t for text in claim_frame["claim"] for t in bm25_tokens(text)}
    corpus_index = corpus.load_corpus_index(index, mmap=True, terms=terms)
    gold_docs, unresolved = _gold(claim_frame, units)
    log.info("retrieving top %d of %d documents for %d claims", k, len(corpus_index.doc_ids), len(claim_frame))
    rows = corpus.retrieve_for_claims(corpus_index, claim_frame[["dataset", "claim_id", "claim"]].to_dict("records"),
                                      gold_docs, unresolved, k, show_progress=True)
    table = RETRIEVED.from_rows(rows)
    tables.write_table(table, retrieved, RETRIEVED)
    misses = sum(r["retrieval_miss"] for r in rows)
    log.info("retrieval misses: %d of %d claims", misses, len(rows))
    return table.to_pandas()


def build_pools(*, retrieved, units, pools: str, max_units: int, pool_kinds: list) -> list[dict]:
    """Candidate pools (at most ``max_units`` units of kinds ``pool_kinds`` per claim) -> POOLS ``pools``."""
    retrieved_frame = tables.read_frame(retrieved, RETRIEVED)
    docs = {d for ds in retrieved_frame["doc_ids"] for d in ds}
    unit_frame = read_units(units, doc_ids=docs, columns=["unit_id", "doc_id", "kind", "position"])
    rows = _pools.build_pools(retrieved_frame, unit_frame, max_units, pool_kinds)
    tables.write_table(POOLS.from_rows(rows), pools, POOLS)
    log.info("pools: %d claims, %d capped at %d units", len(rows), sum(r["capped"] for r in rows), max_units)
    return rows


def _pool_inputs(pools_path, retrieved_path, units_path):
    pool_rows = tables.read_frame(pools_path, POOLS).to_dict("records")
    retrieved = tables.read_frame(retrieved_path, RETRIEVED, columns=["claim_id", "claim"])
    claims = dict(zip(retrieved["claim_id"], retrieved["claim"]))
    ids = {u for p in pool_rows for u in p["unit_ids"]}
    units = read_units(units_path, unit_ids=ids, columns=["unit_id", "text", "context"])
    passages = {u: _ordering.unit_bm25_text(t, c) for u, t, c in zip(units["unit_id"], units["text"], units["context"])}
    return pool_rows, claims, passages


def order_bm25(*, pools, retrieved, units, ordering: str, k1: float, b: float, epsilon: float) -> list[dict]:
    """Each pool of ``pools`` ordered by rank_bm25 BM25Okapi(k1, b, epsilon) -> ORDERING ``ordering``."""
    pool_rows, claims, passages = _pool_inputs(pools, retrieved, units)
    rows = _ordering.order_pools_bm25(pool_rows, claims, passages, k1, b, epsilon, show_progress=True)
    tables.write_table(ORDERING.from_rows(rows), ordering, ORDERING)
    log.info("bm25 orderings: %d pools", len(rows))
    return rows


def order_bge(*, pools, retrieved, units, ordering: str, reranker: dict, claims_per_call: int) -> list[dict]:
    """Each pool of ``pools`` ordered by the cross-encoder ``reranker`` (a ``RerankerSpec`` dict:
    hub_id, revision, local_dir, batch_size, fp16, max_length) -> ORDERING ``ordering``."""
    # the model first: loading's transient memory (the tokenizer's JSON and the backend transformers
    # builds from the file before rebuilding it from the vocabulary, the weights on their way to
    # the device) is freed before the pools' text is read, so the two peaks do not add
    model, identity = _reranker.load_reranker(_reranker.RerankerSpec(**reranker))
    pool_rows, claims, passages = _pool_inputs(pools, retrieved, units)
    rows = _reranker.order_pools_reranker(pool_rows, claims, passages, model, identity,
                                          claims_per_call=claims_per_call, show_progress=True)
    tables.write_table(ORDERING.from_rows(rows), ordering, ORDERING)
    log.info("reranker orderings (%s): %d pools", identity, len(rows))
    return rows
