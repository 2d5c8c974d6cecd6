"""NQ-CC / TQA-CC reader-output records (context-conflict merge, DiffGR).

In:  jsonl, one record per question: ``question`` (str), ``answer`` (list of gold strings),
     ``generated_passage`` / ``retrieved_passage`` (lists of strings); optional ``response``
     (list of strings; absent in reader-input items), ``generated_answer`` /
     ``retrieved_answer`` (strings), ``ctxs`` (list of strings: the passages in the order the
     official reader showed them; kept so DiffGR can take the random order from it) and ``id``.
Out: CONFLICT_QA_RECORDS rows in file order (``tables.conflict_inputs``); ``question_id`` is
     the ``id`` field when present, else the 1-based line number.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ..benchmark_registry import CONFLICT_QA_DATASETS
from ..errors import InputError
from ..tables.conflict_inputs import CONFLICT_QA_RECORDS
from .records import iter_jsonl, require

DATASETS = CONFLICT_QA_DATASETS
LIST_FIELDS = (("answer", "answers"), ("generated_passage", "generated_passages"),
               ("retrieved_passage", "retrieved_passages"), ("response", "responses"))


def read_ctxs(rec: dict, path: Path, line: int) -> list[str] | None:
    """The record's ``ctxs`` list (None when absent); a ``ctxs`` that is not a list of strings
    raises ``InputError`` (file, line, field)."""
    if "ctxs" not in rec:
        return None
    values = require(rec, "ctxs", list, path, line)
    if not all(isinstance(v, str) for v in values):
        raise InputError(path, line, "ctxs", "expected a list of strings (passages as the reader saw them)")
    return values


def read_conflict_qa(path, dataset: str) -> pa.Table:
    """Read one reader-output jsonl. A list field holding a non-string, an empty ``answer``
    list, or a duplicate question id raises ``InputError`` (file, line, field)."""
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}, got {dataset!r}")
    path = Path(path)
    rows, seen = [], {}
    for line, rec in iter_jsonl(path):
        question = require(rec, "question", str, path, line)
        qid = str(require(rec, "id", (str, int), path, line)) if "id" in rec else str(line)
        row = {"dataset": dataset, "question_id": qid, "question": question,
               "source_file": str(path), "source_line": line}
        for key in ("generated_answer", "retrieved_answer"):
            row[key] = require(rec, key, str, path, line) if key in rec else None
        for field, column in LIST_FIELDS:
            if field == "response" and field not in rec:
                row[column] = []
                continue
            values = require(rec, field, list, path, line)
            if not all(isinstance(v, str) for v in values):
                raise InputError(path, line, field, "expected a list of strings")
            row[column] = values
        row["ctxs"] = read_ctxs(rec, path, line)
        if not row["answers"]:
            raise InputError(path, line, "answer", "empty gold answer list")
        if qid in seen:
            raise InputError(path, line, "id", f"duplicate question id {qid} (first on line {seen[qid]})")
        seen[qid] = line
        rows.append(row)
    return CONFLICT_QA_RECORDS.from_rows(rows)
