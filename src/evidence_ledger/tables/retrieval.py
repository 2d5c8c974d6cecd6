"""Retrieval-stage tables: corpus retrieval per claim, candidate pools, pool orderings.

RETRIEVED: one row per claim (top-k pages / abstracts, with retrieval misses).
POOLS:     one row per claim (the candidate units, in pool order, with the cap bookkeeping).
ORDERING:  one row per (claim, source): the same pool's unit ids in the source's order.
"""
import pyarrow as pa

from . import TableSchema

RETRIEVED = TableSchema(
    name="retrieved",
    version=1,
    written_by=("retrieve",),
    doc="""One row per claim. `doc_ids` are the top-k retrieved documents (wiki pages or
abstracts) in rank order and `scores` their corpus BM25 scores. `gold_doc_ids` are the
documents holding gold evidence (pages of the gold units; SciFact: gold abstracts), sorted;
`missed_gold_doc_ids` those not retrieved; `retrieval_miss` is True when at least one gold
document was not retrieved (False for claims without gold documents).
`unresolved_gold_units` counts gold unit ids that are not in the units table (their page
cannot be known, so they cannot be retrieved either).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("claim", pa.string()),
        ("doc_ids", pa.list_(pa.string())),
        ("scores", pa.list_(pa.float64())),
        ("gold_doc_ids", pa.list_(pa.string())),
        ("missed_gold_doc_ids", pa.list_(pa.string())),
        ("retrieval_miss", pa.bool_()),
        ("unresolved_gold_units", pa.int64()),
    ]),
)

POOLS = TableSchema(
    name="pools",
    version=1,
    written_by=("build_pools",),
    doc="""One row per claim: its candidate pool. `unit_ids` in pool order (retrieved-page
rank, then document order), `doc_ids` the document of each unit (parallel list).
`units_available` counts the units of the retrieved documents before the cap;
`capped` is True when units were cut at `max_pool_units`.""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("unit_ids", pa.list_(pa.string())),
        ("doc_ids", pa.list_(pa.string())),
        ("units_available", pa.int64()),
        ("capped", pa.bool_()),
    ]),
)

ORDERING = TableSchema(
    name="ordering",
    version=1,
    written_by=("order_bm25", "order_bge"),
    doc="""One row per (claim, source): the claim's pool in the source's order
(`bm25`: rank_bm25 BM25Okapi semantics within the pool; `bge`: cross-encoder reranker).
`unit_ids`, `scores` and `pool_positions` are parallel lists. Ties are broken by score
(descending), then pool position, then unit id, so the order is deterministic. `model`
names the scorer (e.g. `BM25Okapi(k1=1.5,b=0.75,epsilon=0.25)` or the reranker id@revision).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("source", pa.string()),
        ("unit_ids", pa.list_(pa.string())),
        ("scores", pa.list_(pa.float64())),
        ("pool_positions", pa.list_(pa.int64())),
        ("model", pa.string()),
    ]),
)
