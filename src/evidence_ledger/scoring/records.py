"""Reading official JSONL submission/gold files for the scorers.

In:  a JSONL path. Out: a list of ``(line_number, record_dict)`` (1-based line numbers,
blank lines skipped). A line that is not a JSON object raises
:class:`~evidence_ledger.errors.InputError` naming the file and line.
"""
from __future__ import annotations

import json
from pathlib import Path

from evidence_ledger.errors import InputError


def read_jsonl(path) -> list[tuple[int, dict]]:
    """All JSON objects of a JSONL file with their 1-based line numbers."""
    path = Path(path)
    records = []
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(path, line_no, None, f"not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise InputError(path, line_no, None, "a JSON object is expected on every line")
            records.append((line_no, record))
    return records


def require(record: dict, field: str, path, line: int | None):
    """``record[field]``, or an InputError naming the record when the field is absent."""
    if field not in record:
        raise InputError(path, line, field, "missing")
    return record[field]


def match_records(gold: list[tuple[int, dict]], predictions: list[tuple[int, dict]], gold_path, pred_path,
                  *, allow_missing: bool = False) -> tuple[str, list[tuple[tuple[int, dict], tuple[int, dict] | None]]]:
    """Pair every gold record with its prediction, by ``id`` or else by position.

    By id when every gold record has a unique ``id`` and every prediction has an ``id``;
    otherwise by position (the official FEVER/FEVEROUS "blind" mode, which requires equal
    lengths). Ids compare as strings (``5`` and ``"5"`` are the same claim).

    Errors (:class:`InputError`, naming the record): a prediction id that occurs twice, a
    prediction id that is not a gold claim, a gold claim without prediction (unless
    ``allow_missing``: then it is paired with ``None``), unequal lengths in positional mode.
    Returns ``(mode, pairs)`` with mode ``"id"`` or ``"position"``; pairs follow gold order.
    """
    gold_ids = [str(rec["id"]) if "id" in rec else None for _, rec in gold]
    by_id = (all(i is not None for i in gold_ids) and len(set(gold_ids)) == len(gold_ids)
             and all("id" in rec for _, rec in predictions))
    if not by_id:
        if len(gold) != len(predictions):
            raise InputError(pred_path, None, None,
                             f"matching by position (gold ids absent or not unique): {len(predictions)} "
                             f"predictions for {len(gold)} gold claims")
        return "position", list(zip(gold, predictions))
    seen: dict[str, int] = {}
    gold_set = set(gold_ids)
    for line, rec in predictions:
        key = str(rec["id"])
        if key in seen:
            raise InputError(pred_path, line, "id", f"claim id {key!r} predicted twice (first at line {seen[key]})")
        if key not in gold_set:
            raise InputError(pred_path, line, "id", f"claim id {key!r} is not in the gold file {gold_path}")
        seen[key] = line
    pred_by_id = {str(rec["id"]): (line, rec) for line, rec in predictions}
    pairs = []
    for (line, rec), key in zip(gold, gold_ids):
        if key not in pred_by_id and not allow_missing:
            raise InputError(gold_path, line, "id", f"claim id {key!r} has no prediction in {pred_path}")
        pairs.append(((line, rec), pred_by_id.get(key)))
    return "id", pairs


def submission_pairs(gold: list[tuple[int, dict]], gold_path, predictions_path):
    """(gold, prediction) record pairs of an official submission: every prediction line must
    carry ``predicted_evidence``; records are matched as ``match_records`` does."""
    predictions = read_jsonl(predictions_path)
    for line, rec in predictions:
        require(rec, "predicted_evidence", predictions_path, line)
    return match_records(gold, predictions, gold_path, predictions_path)[1]
