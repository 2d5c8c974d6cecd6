"""Toy reader: claims jsonl ``{id, claim, label, evidence: [[page, line], ...]}`` and pages jsonl
``{page, sentences: [str]}`` -> CLAIMS / UNITS / DOCUMENTS (unit ids ``"{page}::{line}"``)."""
from __future__ import annotations

import json
from pathlib import Path

from evidence_ledger.datasets.records import resolve_gold_ids
from evidence_ledger.tables.ingest import CLAIMS, DOCUMENTS, UNITS

DATASET = "toy"


def read_toy_claims(path, unit_ids=None, on_unresolved: str = "error") -> object:
    rows = []
    for line, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        rec = json.loads(text)
        groups = [[f"{page}::{sent}" for page, sent in rec["evidence"]]] if rec["evidence"] else []
        rows.append({"dataset": DATASET, "claim_id": str(rec["id"]), "claim": rec["claim"], "label": rec["label"],
                     "evidence_groups": groups, "gold_abstracts": [], "cited_doc_ids": [],
                     "source_file": str(path), "source_line": line})
    return CLAIMS.from_rows(resolve_gold_ids(rows, unit_ids, on_unresolved))


def read_toy_pages(path):
    units, docs = [], []
    for text in Path(path).read_text(encoding="utf-8").splitlines():
        rec = json.loads(text)
        for i, sentence in enumerate(rec["sentences"]):
            units.append({"dataset": DATASET, "unit_id": f"{rec['page']}::{i}", "doc_id": rec["page"],
                          "kind": "sentence", "position": i, "text": sentence, "context": rec["page"]})
        docs.append({"dataset": DATASET, "doc_id": rec["page"], "title": rec["page"],
                     "text": " ".join(rec["sentences"])})
    return UNITS.from_rows(units), DOCUMENTS.from_rows(docs)


def ingest_toy(claims_by_split: dict, pages=None, on_unresolved: str = "error"):
    """The registry's reader entry point: (CLAIMS per split, UNITS, DOCUMENTS); gold ids are
    checked against the pages when given."""
    units, docs = read_toy_pages(pages) if pages else (UNITS.empty(), DOCUMENTS.empty())
    unit_ids = set(units.column("unit_id").to_pylist()) if pages else None
    return {split: read_toy_claims(path, unit_ids, on_unresolved) for split, path in claims_by_split.items()}, units, docs
