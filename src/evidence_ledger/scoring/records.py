"""Reading official JSONL submission/gold files for the scorers.

In:  a JSONL path. Out: a list of ``(line_number, record_dict)`` (1-based line numbers,
blank lines skipped). A line that is not a JSON object raises
:class:`~evidence_ledger.errors.InputError` naming the file and line.
"""
from __future__ import annotations

import warnings

from evidence_ledger.errors import InputError
from evidence_ledger.jsonl import read_jsonl


def require(record: dict, field: str, path, line: int | None):
    """``record[field]``, or an InputError naming the record when the field is absent."""
    if field not in record:
        raise InputError(path, line, field, "missing")
    return record[field]


MATCH_MODES = ("auto", "position")


def _duplicate_gold_id(gold: list[tuple[int, dict]], gold_path) -> None:
    """Every gold record has an ``id`` and no id occurs twice, else InputError naming the lines."""
    first: dict[str, int] = {}
    for line, rec in gold:
        if "id" not in rec:
            raise InputError(gold_path, line, "id", "missing (predictions are matched to gold claims by id)")
        key = str(rec["id"])
        if key in first:
            raise InputError(gold_path, line, "id",
                             f"claim id {key!r} occurs twice (lines {first[key]} and {line}); predictions are "
                             f"matched by id")
        first[key] = line


def matching_mode(predictions: list[tuple[int, dict]], pred_path, match: str = "auto") -> str:
    """``"id"`` or ``"position"``: how predictions are paired with gold claims.

    ``match="position"`` asks for positional pairing. Otherwise (``"auto"``): by id when every
    prediction line has an ``id``, by position when none has; a file where some lines have an
    id and others not is an InputError naming the first line without one (the matching rule
    never changes silently).
    """
    if match not in MATCH_MODES:
        raise ValueError(f"match must be one of {MATCH_MODES}, got {match!r}")
    if match == "position":
        return "position"
    with_id = [line for line, rec in predictions if "id" in rec]
    if len(with_id) == len(predictions):
        return "id"
    if not with_id:
        return "position"
    first_without = next(line for line, rec in predictions if "id" not in rec)
    raise InputError(pred_path, first_without, "id",
                     f"missing while line {with_id[0]} has one: predictions are matched by id, so every line "
                     f"needs an id (or use positional matching)")


def match_records(gold: list[tuple[int, dict]], predictions: list[tuple[int, dict]], gold_path, pred_path,
                  *, allow_missing: bool = False, match: str = "auto"
                  ) -> tuple[str, list[tuple[tuple[int, dict], tuple[int, dict] | None]]]:
    """Pair every gold record with its prediction, by ``id`` or by position (see :func:`matching_mode`).

    By id: every gold record needs a unique ``id`` (a duplicate is an InputError naming both
    lines); ids compare as strings (``5`` and ``"5"`` are the same claim). Errors
    (:class:`InputError`, naming the record): a prediction id that occurs twice, a prediction
    id that is not a gold claim, a gold claim without prediction (unless ``allow_missing``:
    then it is paired with ``None``).
    By position (the official FEVER/FEVEROUS "blind" mode): equal lengths, and where both the
    gold line and the prediction line carry an ``id`` they must agree (the first mismatch is
    an InputError). A warning says that positional pairing was used.
    Returns ``(mode, pairs)`` with mode ``"id"`` or ``"position"``; pairs follow gold order.
    """
    mode = matching_mode(predictions, pred_path, match)
    if mode == "position":
        if len(gold) != len(predictions):
            raise InputError(pred_path, None, None,
                             f"matching by position: {len(predictions)} predictions for {len(gold)} gold claims")
        for (g_line, g_rec), (p_line, p_rec) in zip(gold, predictions):
            if "id" in g_rec and "id" in p_rec and str(g_rec["id"]) != str(p_rec["id"]):
                raise InputError(pred_path, p_line, "id",
                                 f"claim id {str(p_rec['id'])!r} differs from the gold claim at the same position "
                                 f"({gold_path}:{g_line} has id {str(g_rec['id'])!r}); matching by position")
        warnings.warn(f"predictions in {pred_path} matched to gold claims by position (line order), not by id",
                      stacklevel=2)
        return "position", list(zip(gold, predictions))
    _duplicate_gold_id(gold, gold_path)
    gold_ids = [str(rec["id"]) for _, rec in gold]
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


def carries_own_gold(record: dict) -> bool:
    """A prediction line with its own ``label`` and ``evidence`` (scored against those, officially)."""
    return "label" in record and "evidence" in record


def submission_pairs(gold: list[tuple[int, dict]] | None, gold_path, predictions_path, *, match: str = "auto",
                     is_header=None) -> tuple[str, list[tuple[tuple, tuple[int, dict]]]]:
    """(gold, prediction) record pairs of an official FEVER/FEVEROUS submission.

    Every prediction line must carry ``predicted_evidence``; a first line for which
    ``is_header(record)`` holds is skipped (the FEVEROUS baseline's ``{"header": ""}``).
    As the official ``fever_score`` / ``feverous_score`` do, a prediction line that carries its
    own ``label`` and ``evidence`` is scored against those: when every line does, no gold file
    is needed (mode ``"self"``; a gold file given anyway is not read, with a warning);
    otherwise lines are paired with ``gold`` as :func:`match_records` does, and lines with their
    own label and evidence still use them. Returns ``(mode, pairs)``, each pair
    ``((path, line, gold_record), (line, prediction_record))``.
    """
    predictions = read_jsonl(predictions_path)
    if predictions and is_header is not None and is_header(predictions[0][1]):
        predictions = predictions[1:]
    for line, rec in predictions:
        require(rec, "predicted_evidence", predictions_path, line)
    if predictions and all(carries_own_gold(rec) for _, rec in predictions):
        if gold_path is not None:
            warnings.warn(f"every line of {predictions_path} carries its own label and evidence: scored against "
                          f"those, {gold_path} is not used (as the official scorer does)", stacklevel=2)
        return "self", [((predictions_path, line, rec), (line, rec)) for line, rec in predictions]
    if gold is None:
        line = next((line for line, rec in predictions if not carries_own_gold(rec)), None)
        raise InputError(predictions_path, line, None,
                         "no gold file given: every prediction line must carry its own 'label' and 'evidence'")
    mode, matched = match_records(gold, predictions, gold_path, predictions_path, match=match)
    pairs = []
    for (g_line, g_rec), (p_line, p_rec) in matched:
        source = (predictions_path, p_line, p_rec) if carries_own_gold(p_rec) else (gold_path, g_line, g_rec)
        pairs.append((source, (p_line, p_rec)))
    return mode, pairs
