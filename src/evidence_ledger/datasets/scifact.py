"""SciFact readers: ``claims_*.jsonl`` and ``corpus.jsonl``.

In:  claims ``{id, claim, evidence: {doc_id: [{sentences: [i], label}]}, cited_doc_ids}``;
     corpus ``{doc_id, title, abstract: [sentence], structured}``.
Out: CLAIMS (evidence_groups = each rationale set as unit ids ``"{doc_id}:{i}"``,
     gold_abstracts = ``{doc_id, label}`` per evidence document in file order, claim label
     NOINFO without gold abstract else the first gold abstract's label, cited_doc_ids as
     strings), UNITS (kind sentence, context = abstract title) and DOCUMENTS.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ..benchmark_registry import SCIFACT
from ..errors import InputError
from ..tables.ingest import CLAIMS, DOCUMENTS, UNITS
from ..vocabulary import scifact_unit_id
from .records import check_label, dedupe_groups, iter_jsonl, require, resolve_gold_ids

DATASET = "scifact"
LABELS = SCIFACT.verdict_labels  # a gold abstract's labels
NOINFO = SCIFACT.nei_label


def gold_of(evidence: dict, path, line: int) -> tuple[list[dict], list[list[str]]]:
    """(gold_abstracts, evidence_groups) of one claim's ``evidence`` mapping.

    All rationale sets of one abstract must share a label (the release guarantees it); a
    mixed abstract, an unknown label or a non-integer sentence index raises ``InputError``.
    """
    abstracts, groups = [], []
    for doc_id, sets in evidence.items():
        if not isinstance(sets, list) or not sets:
            raise InputError(path, line, "evidence", f"abstract {doc_id}: expected a non-empty list of rationale sets")
        labels = []
        for k, rationale in enumerate(sets):
            if not isinstance(rationale, dict):
                raise InputError(path, line, "evidence", f"abstract {doc_id} set {k}: not an object")
            labels.append(check_label(rationale.get("label"), LABELS, path, line, field="evidence.label"))
            sentences = rationale.get("sentences")
            if (not isinstance(sentences, list) or not sentences
                    or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in sentences)):
                raise InputError(path, line, "evidence.sentences",
                                 f"abstract {doc_id} set {k}: sentences must be a non-empty list of indices")
            groups.append([scifact_unit_id(doc_id, s) for s in sentences])
        if len(set(labels)) != 1:
            raise InputError(path, line, "evidence.label", f"abstract {doc_id}: rationale sets disagree on the label {labels}")
        abstracts.append({"doc_id": str(doc_id), "label": labels[0]})
    return abstracts, dedupe_groups(groups)


def read_scifact_claims(path, unit_ids=None, on_unresolved: str = "error") -> pa.Table:
    """Read SciFact claims into CLAIMS (file order); ``unit_ids`` None = claims-only load."""
    path = Path(path)
    rows, seen = [], {}
    for line, rec in iter_jsonl(path):
        cid = require(rec, "id", int, path, line)
        claim = require(rec, "claim", str, path, line)
        evidence = require(rec, "evidence", dict, path, line)
        cited = require(rec, "cited_doc_ids", list, path, line)
        if not all(isinstance(d, int) and not isinstance(d, bool) for d in cited):
            raise InputError(path, line, "cited_doc_ids", "expected a list of integer document ids")
        abstracts, groups = gold_of(evidence, path, line)
        if str(cid) in seen:
            raise InputError(path, line, "id", f"duplicate claim id {cid} (first on line {seen[str(cid)]})")
        seen[str(cid)] = line
        rows.append({
            "dataset": DATASET, "claim_id": str(cid), "claim": claim,
            "label": abstracts[0]["label"] if abstracts else NOINFO,
            "evidence_groups": groups, "gold_abstracts": abstracts,
            "cited_doc_ids": [str(d) for d in cited], "source_file": str(path), "source_line": line,
        })
    resolve_gold_ids(rows, unit_ids, on_unresolved)
    return CLAIMS.from_rows(rows)


def read_scifact_corpus(path) -> tuple[pa.Table, pa.Table]:
    """Read ``corpus.jsonl`` into (UNITS, DOCUMENTS), file order; sentence i -> ``"{doc_id}:{i}"``."""
    path = Path(path)
    units, docs, seen = [], [], {}
    for line, rec in iter_jsonl(path):
        doc_id = str(require(rec, "doc_id", int, path, line))
        title = require(rec, "title", str, path, line)
        abstract = require(rec, "abstract", list, path, line)
        if not all(isinstance(s, str) for s in abstract):
            raise InputError(path, line, "abstract", "expected a list of sentence strings")
        if doc_id in seen:
            raise InputError(path, line, "doc_id", f"duplicate doc_id {doc_id} (first on line {seen[doc_id]})")
        seen[doc_id] = line
        for i, sentence in enumerate(abstract):
            units.append({"dataset": DATASET, "unit_id": scifact_unit_id(doc_id, i), "doc_id": doc_id,
                          "kind": "sentence", "position": i, "text": sentence.strip(), "context": title})
        docs.append({"dataset": DATASET, "doc_id": doc_id, "title": title,
                     "text": " ".join(s.strip() for s in abstract)})
    return UNITS.from_rows(units), DOCUMENTS.from_rows(docs)


def ingest_scifact(claims_by_split: dict, corpus=None, on_unresolved: str = "error"):
    """(claims table per split, UNITS, DOCUMENTS); ``corpus`` None = claims-only load."""
    if corpus is None:
        units, docs = UNITS.empty(), DOCUMENTS.empty()
        unit_ids = None
    else:
        units, docs = read_scifact_corpus(corpus)
        unit_ids = set(units.column("unit_id").to_pylist())
    claims = {split: read_scifact_claims(path, unit_ids, on_unresolved) for split, path in claims_by_split.items()}
    return claims, units, docs
