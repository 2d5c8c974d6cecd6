"""Reading official JSONL submission/gold files for the scorers, and pairing them.

In:  JSONL paths (gold and predictions). Out: ``(line_number, record_dict)`` lists (1-based
line numbers, blank lines skipped), the (gold, prediction) pairs of a submission with how they
were paired (:class:`Submission`: by id, by position with the id disagreements counted, or
against the lines' own gold when asked for) and how many lines' own gold fields a gold file
overrode. A line that is not a JSON object raises :class:`~evidence_ledger.errors.InputError`
naming the file and line.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

from evidence_ledger.errors import InputError
from evidence_ledger.files.jsonl import read_jsonl


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


def positional_id_disagreements(gold: list[tuple[int, dict]], predictions: list[tuple[int, dict]]) -> int:
    """Lines where both the gold and the prediction record carry an ``id`` and the two differ
    (as strings). The official fever-scorer pairs by position and never reads ids: its own test
    fixture ``tests/actual.jsonl`` has the placeholder id 0 on every line."""
    return sum(1 for (_, g_rec), (_, p_rec) in zip(gold, predictions)
               if "id" in g_rec and "id" in p_rec and str(g_rec["id"]) != str(p_rec["id"]))


def match_records(gold: list[tuple[int, dict]], predictions: list[tuple[int, dict]], gold_path, pred_path,
                  *, allow_missing: bool = False, match: str = "auto"
                  ) -> tuple[str, list[tuple[tuple[int, dict], tuple[int, dict] | None]], int]:
    """Pair every gold record with its prediction, by ``id`` or by position (see :func:`matching_mode`).

    By id: every gold record needs a unique ``id`` (a duplicate is an InputError naming both
    lines); ids compare as strings (``5`` and ``"5"`` are the same claim). Errors
    (:class:`InputError`, naming the record): a prediction id that occurs twice, a prediction
    id that is not a gold claim, a gold claim without prediction (unless ``allow_missing``:
    then it is paired with ``None``).
    By position (the official FEVER/FEVEROUS "blind" mode): equal lengths; ids are not used
    for pairing, and lines whose gold and prediction ids differ are counted
    (:func:`positional_id_disagreements`, said in a warning). A warning says that positional
    pairing was used.
    Returns ``(mode, pairs, id_disagreements)`` with mode ``"id"`` or ``"position"`` (the count
    is 0 by id); pairs follow gold order.
    """
    mode = matching_mode(predictions, pred_path, match)
    if mode == "position":
        if len(gold) != len(predictions):
            raise InputError(pred_path, None, None,
                             f"matching by position: {len(predictions)} predictions for {len(gold)} gold claims")
        warnings.warn(f"predictions in {pred_path} matched to gold claims by position (line order), not by id",
                      stacklevel=2)
        disagreements = positional_id_disagreements(gold, predictions)
        if disagreements:
            warnings.warn(f"matching by position: on {disagreements} of {len(gold)} lines the prediction id differs "
                          f"from the gold id at the same line of {gold_path} (counted as 'id_disagreements')",
                          stacklevel=2)
        return "position", list(zip(gold, predictions)), disagreements
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
    return "id", pairs, 0


def carries_own_gold(record: dict) -> bool:
    """A prediction line with its own ``label`` and ``evidence`` (the official scorers' test
    files and the FEVEROUS baseline's output)."""
    return "label" in record and "evidence" in record


@dataclass(frozen=True)
class Submission:
    """How an official FEVER/FEVEROUS submission was paired with its gold records.

    ``mode``: ``"id"``, ``"position"`` or ``"self"`` (lines scored against their own label and
    evidence, asked for explicitly). ``pairs``: ``((path, line, gold_record), (line,
    prediction_record))`` in gold order. ``id_disagreements``: positional lines whose ids differ.
    ``own_gold_ignored``: prediction lines that carried their own ``label`` and ``evidence``,
    ignored because a gold file was given.
    """

    mode: str
    pairs: list
    id_disagreements: int = 0
    own_gold_ignored: int = 0


def submission_pairs(gold: list[tuple[int, dict]] | None, gold_path, predictions_path, *, match: str = "auto",
                     is_header=None, self_contained_gold: bool = False) -> Submission:
    """Pair an official FEVER/FEVEROUS submission with the records it is scored against.

    Every prediction line must carry ``predicted_evidence``; a first line for which
    ``is_header(record)`` holds is skipped (the FEVEROUS baseline's ``{"header": ""}``).
    With a gold file (``gold`` not None) the gold file is the only source of truth: lines are
    paired as :func:`match_records` does, and a line's own ``label`` / ``evidence`` is ignored
    (counted in ``own_gold_ignored``, said in a warning). Without one, ``self_contained_gold``
    must be asked for: every line is then scored against its own ``label`` and ``evidence``, as
    the official ``fever_score(predictions)`` / FEVEROUS ``evaluate.py`` do (a line without them
    is an InputError naming it). Giving both, or neither, is a ValueError.
    """
    if (gold is None) == (not self_contained_gold):
        raise ValueError("give exactly one source of gold labels and evidence: a gold file, or "
                         "self_contained_gold=True (each prediction line's own 'label' and 'evidence')")
    predictions = read_jsonl(predictions_path)
    if predictions and is_header is not None and is_header(predictions[0][1]):
        predictions = predictions[1:]
    for line, rec in predictions:
        require(rec, "predicted_evidence", predictions_path, line)
    if self_contained_gold:
        for line, rec in predictions:
            if not carries_own_gold(rec):
                missing = "label" if "label" not in rec else "evidence"
                raise InputError(predictions_path, line, missing,
                                 "missing: with self-contained gold every prediction line carries its own "
                                 "'label' and 'evidence' (or give the gold file)")
        return Submission("self", [((predictions_path, line, rec), (line, rec)) for line, rec in predictions])
    mode, matched, disagreements = match_records(gold, predictions, gold_path, predictions_path, match=match)
    own = sum(1 for _, rec in predictions if carries_own_gold(rec))
    if own:
        warnings.warn(f"{own} of {len(predictions)} lines of {predictions_path} carry their own 'label' and "
                      f"'evidence': ignored, every line is scored against {gold_path} (counted as "
                      f"'own_gold_ignored')", stacklevel=2)
    pairs = [((gold_path, g_line, g_rec), (p_line, p_rec)) for (g_line, g_rec), (p_line, p_rec) in matched]
    return Submission(mode, pairs, disagreements, own)


@dataclass(frozen=True)
class ScoredLine:
    """One prediction line of a FEVER/FEVEROUS submission scored against its gold record:
    ``claim_id`` (the gold record's id as text, else its line number), the gold and the
    prediction file's line numbers, the gold label and the predicted label as written, and the
    per-claim scores (``scoring.fever.ClaimScore``: ``label_correct``, ``evidence_eligible``, ...)."""

    claim_id: str
    gold_line: int
    line: int
    gold_label: str
    predicted_label: str
    score: object


def gold_claim_id(record: dict, line: int) -> str:
    """The claim id of a gold record as text (its line number when it has none: self-contained gold)."""
    return str(record["id"]) if "id" in record else str(line)


def scored_pairs(submission: Submission, predictions_path, *, parse_gold, parse_prediction, score,
                 parsed_gold: dict | None = None) -> list[ScoredLine]:
    """One :class:`ScoredLine` per pair of ``submission`` (gold order). ``parse_gold(record, path,
    line)`` -> ``(gold label, gold evidence)``, memoised per gold line in ``parsed_gold`` (a dict
    kept across the files scored against one gold file); ``parse_prediction(record, path, line)``
    -> ``(predicted label, predicted evidence)``; ``score(gold label, gold evidence, predicted
    label, predicted evidence)`` -> the claim's scores. The parsers raise InputError naming the
    file and line."""
    parsed = {} if parsed_gold is None else parsed_gold
    lines = []
    for (g_path, g_line, g_rec), (p_line, p_rec) in submission.pairs:
        if (g_path, g_line) not in parsed:
            parsed[g_path, g_line] = parse_gold(g_rec, g_path, g_line)
        gold_label, gold_evidence = parsed[g_path, g_line]
        predicted_label, predicted = parse_prediction(p_rec, predictions_path, p_line)
        lines.append(ScoredLine(gold_claim_id(g_rec, g_line), g_line, p_line, gold_label, predicted_label,
                                score(gold_label, gold_evidence, predicted_label, predicted)))
    return lines
