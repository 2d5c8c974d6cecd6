"""The demo through the retrieval and evidence rules, read on FEVER in the session's demo run:
ingest -> sample -> corpus index -> retrieve -> pools -> BM25 and reranker orderings (the demo
reranker, built and trained on the three datasets' training claims) -> budgeted evidence under
the two demo generation tokenizers -> diagnostics.
"""
import csv

import pytest

from evidence_ledger.tables import read_table
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.retrieval import ORDERING, POOLS, RETRIEVED

pytestmark = pytest.mark.workflow


def diagnostics(workdir):
    with open(workdir / "results/evidence/fever/diagnostics.tsv", newline="") as fh:
        return {(r["scope"], r["source"], r["budget"], r["metric"]): float(r["value"])
                for r in csv.DictReader(fh, delimiter="\t")}


def test_demo_pools_orderings_and_evidence_tables(demo_run):
    retrieved = read_table(demo_run / "results/retrieval/fever/retrieved.parquet", RETRIEVED).to_pylist()
    pools = read_table(demo_run / "results/retrieval/fever/pools.parquet", POOLS).to_pylist()
    assert len(retrieved) == len(pools) == 60
    # top 5 pages; fewer only when fewer pages share a word with the claim (demo: 5 of 60 claims)
    assert all(1 <= len(r["doc_ids"]) <= 5 for r in retrieved)
    assert sum(len(r["doc_ids"]) == 5 for r in retrieved) >= 50
    assert all(0 < len(p["unit_ids"]) <= 100 for p in pools)
    bm25 = read_table(demo_run / "results/retrieval/fever/ordering_bm25.parquet", ORDERING).to_pylist()
    bge = read_table(demo_run / "results/retrieval/fever/ordering_bge.parquet", ORDERING).to_pylist()
    for a, b, p in zip(bm25, bge, pools):
        assert sorted(a["unit_ids"]) == sorted(b["unit_ids"]) == sorted(p["unit_ids"])  # same pool
    assert sum(a["unit_ids"][:5] != b["unit_ids"][:5] for a, b in zip(bm25, bge)) >= 50  # orderings differ
    evidence = read_table(demo_run / "results/evidence/fever/evidence.parquet", EVIDENCE).to_pylist()
    sources = {(e["source"], e["budget"]) for e in evidence}
    assert sources == {(s, b) for s in ("bm25", "bge", "none", "gold", "swap_bm25", "swap_bge", "reversed_bm25",
                                        "reversed_bge") for b in ("short", "long")}
    assert len(evidence) == 60 * 16
    for e in evidence:
        tokens = dict(e["tokens_by_tokenizer"])  # Arrow maps come back as (key, value) pairs
        assert set(tokens) == {"qwen3", "llama31"}
        if e["source"] in ("bm25", "bge"):
            assert max(tokens.values()) <= (64 if e["budget"] == "short" else 192)
        assert len(e["scored_unit_ids"]) <= 5


def test_both_orderings_find_gold_evidence_for_a_share_of_claims(demo_run):
    d = diagnostics(demo_run)
    assert d[("pool", "", "", "gold_recall")] >= 0.9
    # measured on the demo (60 sampled claims, 38 with gold evidence; the demo reranker, 300 steps
    # on the FEVER, FEVEROUS and SciFact training claims): visible gold recall at the long budget
    # BM25 0.92, reranker 0.26 (10 of 38 claims)
    assert d[("evidence", "bm25", "long", "visible_gold_recall")] >= 0.8
    assert d[("evidence", "bge", "long", "visible_gold_recall")] >= 0.2
    assert d[("evidence", "bm25", "long", "visible_gold_recall")] >= d[("evidence", "bm25", "short", "visible_gold_recall")]
    assert d[("evidence", "gold", "long", "scored_gold_recall")] == 1.0
    assert d[("evidence", "none", "short", "visible_gold_recall")] == 0.0
    # the demo's text spells no special token
    assert {v for (scope, _, _, metric), v in d.items() if metric == "special_token_text"} == {0.0}
