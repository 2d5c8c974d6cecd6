"""WikiContradict reader: the released RAG-QA CSV (+ the full JSON release when given).

In:  ``WikiContradict_dataset_v1_rag_qa.csv`` with columns ``question_ID, question, context1,
     context2, answer1, answer2, contradictType, samepassage, merged_context, ref_answer,
     WikipediaArticleTitle, url`` (RFC 4180 quoting, fields may span lines); optionally
     ``WikiContradict_dataset.json``, a JSON array of instance objects keyed by
     ``question_ID`` that carries the stand-alone passage versions.
Out: WIKICONTRADICT_INSTANCES rows in CSV order (``tables.conflict_inputs``).

The JSON's field names for the stand-alone passages are parameters
(``standalone_fields``; default ``paragraph_A_clean`` / ``paragraph_B_clean``) because the
release has been revised; a named field missing from an instance is an error. The modified
consistent passages (the paper's Prompt 5.4 context) are read from the fields named by
``consistent_fields`` (none by default); an instance without them gets nulls.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa

from ..errors import InputError
from ..tables.conflict_inputs import WIKICONTRADICT_INSTANCES
from ..vocabulary import WIKICONTRADICT_CSV_COLUMNS as CSV_COLUMNS
CONTRADICT_TYPES = {"Explicit": "explicit", "Implicit (reasoning required)": "implicit"}
SAME_PASSAGE = {"Same": True, "Different": False}
DEFAULT_STANDALONE_FIELDS = ("paragraph_A_clean", "paragraph_B_clean")


def read_wikicontradict_csv(path) -> list[dict]:
    """Rows of the RAG-QA CSV as instance dicts (CSV order), line = first physical line.

    Raises on a missing column, an empty question/id, a duplicate id, or an unknown
    ``contradictType`` / ``samepassage`` value.
    """
    path = Path(path)
    rows, seen = [], {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        for col in CSV_COLUMNS:
            if col not in header:
                raise InputError(path, 1, col, "missing column in the CSV header")
        while True:
            start = reader.line_num + 1
            try:
                rec = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                raise InputError(path, start, "<csv>", f"malformed CSV record: {exc}") from None
            if None in rec or any(v is None for v in rec.values()):
                raise InputError(path, start, "<csv>", "record has a different number of fields than the header")
            qid = rec["question_ID"].strip()
            if not qid:
                raise InputError(path, start, "question_ID", "empty id")
            if qid in seen:
                raise InputError(path, start, "question_ID", f"duplicate id {qid} (first on line {seen[qid]})")
            seen[qid] = start
            if not rec["question"].strip():
                raise InputError(path, start, "question", "empty question")
            ctype = rec["contradictType"]
            if ctype not in CONTRADICT_TYPES:
                raise InputError(path, start, "contradictType",
                                 f"unknown contradiction type {ctype!r}; expected one of {list(CONTRADICT_TYPES)}")
            same = rec["samepassage"]
            if same not in SAME_PASSAGE:
                raise InputError(path, start, "samepassage", f"unknown value {same!r}; expected one of {list(SAME_PASSAGE)}")
            rows.append({
                "question_id": qid, "question": rec["question"], "context1": rec["context1"],
                "context2": rec["context2"], "answer1": rec["answer1"], "answer2": rec["answer2"],
                "contradict_type": CONTRADICT_TYPES[ctype], "same_passage": SAME_PASSAGE[same],
                "title": rec["WikipediaArticleTitle"], "url": rec["url"],
                "passage1_standalone": None, "passage2_standalone": None,
                "passage1_consistent": None, "passage2_consistent": None,
                "source_file": str(path), "source_line": start,
            })
    return rows


def read_full_json(path, standalone_fields=DEFAULT_STANDALONE_FIELDS,
                   consistent_fields=None) -> dict[str, tuple[str, str, str | None, str | None]]:
    """``question_ID`` -> (stand-alone passage 1, passage 2, consistent passage 1, 2) from the
    full JSON release; the consistent passages are None without ``consistent_fields`` or
    when the instance lacks them (a present field that is not a string is an error).

    Errors use the instance's 1-based index in the array as line.
    """
    path = Path(path)
    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, line, "<json>", f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})") from None
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, "<json>", f"malformed JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(path, None, "<json>", "malformed JSON: nested too deeply to parse") from None
    if not isinstance(data, list):
        raise InputError(path, None, "<json>", "expected a JSON array of instances")
    out = {}
    for i, inst in enumerate(data, start=1):
        if not isinstance(inst, dict) or "question_ID" not in inst:
            raise InputError(path, i, "question_ID", "instance without question_ID")
        for field in standalone_fields:
            if not isinstance(inst.get(field), str):
                raise InputError(path, i, field, "missing or non-string stand-alone passage")
        consistent = [None, None]
        for k, field in enumerate(consistent_fields or ()):
            value = inst.get(field)
            if value is not None and not isinstance(value, str):
                raise InputError(path, i, field, "non-string consistent passage")
            consistent[k] = value or None
        out[str(inst["question_ID"]).strip()] = (inst[standalone_fields[0]], inst[standalone_fields[1]], *consistent)
    return out


def read_wikicontradict(csv_path, full_json=None, standalone_fields=DEFAULT_STANDALONE_FIELDS,
                        consistent_fields=None) -> pa.Table:
    """WIKICONTRADICT_INSTANCES from the CSV, joined with the full JSON when ``full_json`` is given
    (stand-alone passages; consistent passages from ``consistent_fields`` when named).

    With the JSON, every CSV id must appear in it (else ``InputError`` on ``question_ID``).
    """
    rows = read_wikicontradict_csv(csv_path)
    if full_json is not None:
        standalone = read_full_json(full_json, standalone_fields, consistent_fields)
        for row in rows:
            if row["question_id"] not in standalone:
                raise InputError(full_json, None, "question_ID",
                                 f"CSV instance {row['question_id']} (line {row['source_line']}) is not in the full JSON")
            (row["passage1_standalone"], row["passage2_standalone"], row["passage1_consistent"],
             row["passage2_consistent"]) = standalone[row["question_id"]]
    return WIKICONTRADICT_INSTANCES.from_rows(rows)
