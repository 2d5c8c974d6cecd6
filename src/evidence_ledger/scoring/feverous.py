"""FEVEROUS scoring with the semantics of Raldir/FEVEROUS ``feverous_score(max_evidence=5, max_evidence_cell=25)``.

In:  per claim the gold label, the gold evidence sets (the ``content`` lists of the official
     ``evidence``) as ``(page, type, position)`` triples, the predicted label and the
     predicted evidence (ordered triples, or released id strings split by
     :func:`split_element_id`).
Out: per-claim indicators (:class:`evidence_ledger.scoring.fever.ClaimScore`) and the corpus
     scores ``strict_score, label_accuracy, precision, recall, f1``.

Rules (the official code's):
* ids split on ``_`` into (page, type, position); ``table_caption`` and ``header_cell`` are
  two-token types (detected, as officially, by the substring anywhere in the id);
* truncation in prediction order keeps at most 25 items of the cell-like types {cell, item,
  table_caption, header_cell} and at most 5 of all other types (sentence, title, section,
  ...); the two budgets are independent and duplicates consume budget; every metric is
  computed on the kept items;
* strict: label right AND some gold set entirely inside the kept items. **No NEI
  exemption**: NEI claims need evidence too (a claim without gold sets is never eligible);
* precision and recall are over **all** claims, NEI included: precision = kept items that
  are any gold element / kept items (1.0 for an empty list); recall = 1 if a complete gold
  set is kept (1.0 for a claim with no gold sets);
* F1 = 2PR/(P+R), 0.0 with a warning when P = R = 0 (the official code divides by zero).
"""
from __future__ import annotations

from typing import Mapping, Sequence

from evidence_ledger.benchmark_registry import FEVEROUS
from evidence_ledger.errors import InputError
from evidence_ledger.vocabulary import FEVEROUS_CELL_LIKE_TYPES as CELL_LIKE_TYPES
from evidence_ledger.vocabulary import split_feverous_element_id as split_element_id

from .fever import ClaimScore, CorpusScore, FileScore, corpus_score, is_correct_label
from .records import ScoredLine, Submission, read_jsonl, require, scored_pairs, submission_pairs

NEI = FEVEROUS.nei_label
LABELS = FEVEROUS.labels
MAX_EVIDENCE = FEVEROUS.scorer_caps["max_evidence"]
MAX_EVIDENCE_CELL = FEVEROUS.scorer_caps["max_evidence_cell"]

Element = tuple  # (page: str, type: str, position: str)


def truncate_evidence(predicted: Sequence[Element], max_evidence: int | None = MAX_EVIDENCE,
                      max_evidence_cell: int | None = MAX_EVIDENCE_CELL) -> list[Element]:
    """Keep, in order, the first ``max_evidence_cell`` cell-like and ``max_evidence`` other items.

    ``None`` disables a budget. Duplicates consume budget like any item.
    """
    kept = []
    n_cell = n_other = 0
    for element in predicted:
        if element[1] in CELL_LIKE_TYPES:
            if max_evidence_cell is not None:
                if n_cell >= max_evidence_cell:
                    continue
                n_cell += 1
        else:
            if max_evidence is not None:
                if n_other >= max_evidence:
                    continue
                n_other += 1
        kept.append(tuple(element))
    return kept


def evidence_eligible(gold_sets: Sequence[Sequence[Element]], kept: Sequence[Element]) -> bool:
    """Some gold set entirely inside the kept predictions (no NEI exemption)."""
    kept = {tuple(e) for e in kept}
    return any(all(tuple(e) in kept for e in gold_set) for gold_set in gold_sets)


def evidence_macro_precision(gold_sets: Sequence[Sequence[Element]], kept: Sequence[Element]) -> tuple[float, float]:
    """``(precision, 1.0)``: every claim counts; 1.0 for an empty prediction list."""
    gold_items = {tuple(e) for s in gold_sets for e in s if e[0] is not None}
    if not kept:
        return 1.0, 1.0
    return sum(1.0 for e in kept if tuple(e) in gold_items) / len(kept), 1.0


def evidence_macro_recall(gold_sets: Sequence[Sequence[Element]], kept: Sequence[Element]) -> tuple[float, float]:
    """``(recall, 1.0)``: 1.0 with no gold sets or a complete set kept, else 0.0."""
    if len(gold_sets) == 0:
        return 1.0, 1.0
    return (1.0 if evidence_eligible(gold_sets, kept) else 0.0), 1.0


def score_claim(gold_label: str, gold_sets: Sequence[Sequence[Element]], predicted_label: str,
                predicted_evidence: Sequence[Element], max_evidence: int | None = MAX_EVIDENCE,
                max_evidence_cell: int | None = MAX_EVIDENCE_CELL) -> ClaimScore:
    """All per-claim quantities of the official scorer for one claim (truncation included)."""
    kept = truncate_evidence(predicted_evidence, max_evidence, max_evidence_cell)
    label_correct = is_correct_label(gold_label, predicted_label)
    eligible = evidence_eligible(gold_sets, kept)
    precision, p_counted = evidence_macro_precision(gold_sets, kept)
    recall, r_counted = evidence_macro_recall(gold_sets, kept)
    return ClaimScore(label_correct, eligible, label_correct and eligible,
                      precision, int(p_counted), recall, int(r_counted))


# --- official files ------------------------------------------------------------------


def _label(record: dict, field: str, path, line: int) -> str:
    value = require(record, field, path, line)
    if not isinstance(value, str) or value.upper() not in LABELS:
        raise InputError(path, line, field, f"unknown label {value!r}; expected one of {list(LABELS)}")
    return value


def is_header_record(record: dict) -> bool:
    """The empty first line of the official dev/train jsonl (``id`` and ``label`` empty)."""
    return record.get("id", "") in ("", None) and record.get("label", "") in ("", None)


def parse_gold_sets(value, path, line: int) -> list[list[Element]]:
    """Official gold ``evidence``: a list of ``{"content": [ids], "context": {...}}``."""
    if not isinstance(value, list):
        raise InputError(path, line, "evidence", "must be a list of evidence sets")
    sets = []
    for k, evidence_set in enumerate(value):
        if not isinstance(evidence_set, dict) or not isinstance(evidence_set.get("content"), list):
            raise InputError(path, line, "evidence", f"set {k} has no 'content' list")
        try:
            sets.append([split_element_id(e) for e in evidence_set["content"]])
        except (ValueError, AttributeError) as exc:
            raise InputError(path, line, "evidence", f"set {k}: {exc}") from None
    return sets


def parse_predicted_evidence(value, path, line: int) -> list[Element]:
    """``predicted_evidence`` as released id strings or ``[page, type, position]`` string triples."""
    if not isinstance(value, list):
        raise InputError(path, line, "predicted_evidence", "must be a list")
    out = []
    for k, item in enumerate(value):
        if isinstance(item, str):
            try:
                out.append(split_element_id(item))
            except ValueError as exc:
                raise InputError(path, line, "predicted_evidence", f"item {k}: {exc}") from None
        elif isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) for x in item):
            out.append(tuple(item))
        else:
            raise InputError(path, line, "predicted_evidence",
                             f"item {k} is {item!r}; expected an id string or a [page, type, position] "
                             f"triple of strings")
    return out


def is_prediction_header(record: dict) -> bool:
    """First line of a FEVEROUS prediction file that is no prediction: the baseline's
    ``{"header": ""}`` or the dev file's empty header record (no ``predicted_evidence``)."""
    return "predicted_evidence" not in record and ("header" in record or is_header_record(record))


def score_files(gold_path, predictions_path, max_evidence: int | None = MAX_EVIDENCE,
                max_evidence_cell: int | None = MAX_EVIDENCE_CELL, *, match: str = "auto",
                self_contained_gold: bool = False) -> FileScore:
    """Score a FEVEROUS predictions JSONL against the official dev/train JSONL (header line allowed).

    Records are paired as ``records.submission_pairs`` does; the gold file is the only source of
    labels and evidence. ``self_contained_gold=True`` (with ``gold_path`` None) scores a file whose
    lines carry their own ``label`` and ``evidence`` against those, as
    ``src/feverous/evaluation/evaluate.py`` does with the baseline's output (first line
    ``{"header": ""}``, ids = line index).
    """
    submission, lines = scored_lines(gold_path, predictions_path, max_evidence, max_evidence_cell, match=match,
                                     self_contained_gold=self_contained_gold)
    return FileScore.of(corpus_score(line.score for line in lines), submission)


def read_gold(gold_path) -> list[tuple[int, dict]]:
    """The records of an official dev/train JSONL, its empty header record skipped."""
    gold = read_jsonl(gold_path)
    return gold[1:] if gold and is_header_record(gold[0][1]) else gold


def scored_lines(gold_path, predictions_path, max_evidence: int | None = MAX_EVIDENCE,
                 max_evidence_cell: int | None = MAX_EVIDENCE_CELL, *, match: str = "auto",
                 self_contained_gold: bool = False, gold: list | None = None,
                 parsed_gold: dict | None = None) -> tuple[Submission, list[ScoredLine]]:
    """Every line of a FEVEROUS predictions JSONL scored against the official dev/train JSONL
    (header lines skipped), in gold order: how the lines were paired and one
    ``records.ScoredLine`` per claim (truncation included). Labels outside FEVEROUS's set, a
    malformed evidence item and a line without ``predicted_label`` are InputErrors naming the
    file and line. Scoring several files against one gold file: ``gold`` its records
    (:func:`read_gold`) and ``parsed_gold`` a dict kept across the calls, so the gold file is
    read and parsed once."""
    if gold is None and gold_path is not None:
        gold = read_gold(gold_path)
    submission = submission_pairs(gold, gold_path, predictions_path, match=match, is_header=is_prediction_header,
                                  self_contained_gold=self_contained_gold)
    lines = scored_pairs(
        submission, predictions_path, parsed_gold=parsed_gold,
        parse_gold=lambda rec, path, line: (_label(rec, "label", path, line),
                                            parse_gold_sets(require(rec, "evidence", path, line), path, line)),
        parse_prediction=lambda rec, path, line: (_label(rec, "predicted_label", path, line),
                                                  parse_predicted_evidence(rec["predicted_evidence"], path, line)),
        score=lambda gold_label, sets, label, predicted: score_claim(gold_label, sets, label, predicted,
                                                                    max_evidence, max_evidence_cell))
    return submission, lines


def unit_evidence_eligible(claim: Mapping, doc_id: str, scored_unit_ids: Sequence[str], *,
                           max_evidence: int, max_evidence_cell: int, max_sentences: int) -> bool:
    """The evidence condition on a CLAIMS row (``evidence_groups`` as released element ids) and
    the scored unit ids, truncated as the official scorer truncates (``max_sentences`` unused)."""
    sets = [[split_element_id(u) for u in g] for g in claim["evidence_groups"] or []]
    return evidence_eligible(sets, truncate_evidence([split_element_id(u) for u in scored_unit_ids],
                                                     max_evidence, max_evidence_cell))


__all__ = [
    "CELL_LIKE_TYPES", "ClaimScore", "CorpusScore", "evidence_eligible", "evidence_macro_precision",
    "evidence_macro_recall", "is_correct_label", "score_claim",
    "score_files", "scored_lines", "split_element_id", "truncate_evidence", "unit_evidence_eligible",
]
