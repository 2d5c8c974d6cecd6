"""A small synthetic Study 2 world for the generation rules: sampled claims and their evidence
tables (every source and budget the default config asks for), written where the rules read them.

In:  a work directory and a number of claims.
Out: ``results/sampling/fever/sample.parquet`` (CLAIMS) and ``results/evidence/fever/evidence.parquet``
     (EVIDENCE) under it, so ``plan_requests`` and ``generate`` can run on their own.
"""
from pathlib import Path

from evidence_ledger.tables import write_table
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.ingest import CLAIMS

LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
SOURCES = ("bm25", "bge", "none", "gold", "swap_bm25", "swap_bge", "reversed_bm25", "reversed_bge")


def claims(n):
    return [{"dataset": "fever", "claim_id": str(i), "claim": f"Person {i} was born in Varenholm.",
             "label": LABELS[i % 3], "evidence_groups": [[f"P{i}::0"]] if i % 3 != 2 else [],
             "gold_abstracts": [], "cited_doc_ids": [], "source_file": "x.jsonl", "source_line": i + 1,
             "unresolved_ids": []} for i in range(n)]


def evidence(n):
    rows = []
    for i in range(n):
        for source in SOURCES:
            for budget in ("short", "long"):
                text = "" if source == "none" else f"[P{i}] Person {i} was born in {source} {budget}."
                rows.append({"dataset": "fever", "claim_id": str(i), "doc_id": "", "source": source, "budget": budget,
                             "visible_unit_ids": [f"P{i}::0"], "visible_text": text,
                             "tokens_by_tokenizer": [("qwen3", 12)], "scored_unit_ids": [f"P{i}::0"],
                             "unresolved": 0, "fits_budget": True, "submitted_unit_ids": None})
    return rows


def write_world(workdir: Path, n: int) -> None:
    write_table(CLAIMS.from_rows(claims(n)), workdir / "results/sampling/fever/sample.parquet", CLAIMS)
    write_table(EVIDENCE.from_rows(evidence(n)), workdir / "results/evidence/fever/evidence.parquet", EVIDENCE)
