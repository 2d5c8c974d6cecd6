"""FEVER scoring with the semantics of sheffieldnlp/fever-scorer ``fever_score(max_evidence=5)``.

In:  per claim the gold label, the gold evidence groups as lists of ``(page, line)`` pairs,
     the predicted label and the predicted evidence as an ordered list of ``(page, line)``.
Out: per-claim indicators (:class:`ClaimScore`) and the corpus scores
     ``strict_score, label_accuracy, precision, recall, f1`` (fractions in [0, 1]).

Rules (the official code's, edge cases included):
* labels compare case-insensitively;
* only the first ``max_evidence`` (5) predicted items count; duplicates occupy slots;
* strict: label right AND (gold label NOT ENOUGH INFO, or some complete gold group is inside
  the first 5 items). The NEI exemption lives in :func:`evidence_eligible`, so
  ``strict == label_correct and evidence_eligible`` for every claim;
* precision and recall only count claims whose *gold* label is not NEI. Precision per claim
  = hits / len(first 5 items) (1.0 for an empty list), recall per claim = 1 if a complete
  group is within the first 5 (1.0 if the gold evidence list is empty); corpus values are the
  means, precision 1.0 / recall 0.0 when no claim counts;
* F1 = 2PR / (P + R). The official code divides by zero when P = R = 0; here F1 is 0.0 and a
  warning is issued.
"""
from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from typing import Iterable, Mapping, Sequence

from evidence_ledger.benchmark_registry import FEVER
from evidence_ledger.errors import InputError
from evidence_ledger.vocabulary import split_fever_unit_id as unit_id_to_sentence

from .records import ScoredLine, Submission, read_jsonl, require, scored_pairs, submission_pairs

NEI = FEVER.nei_label
LABELS = FEVER.labels
MAX_EVIDENCE = FEVER.scorer_caps["max_evidence"]

Sentence = tuple  # (page: str, line: int)


def is_correct_label(gold_label: str, predicted_label: str) -> bool:
    """Predicted label equals the gold label, ignoring case (INVALID is never correct)."""
    return gold_label.upper() == predicted_label.upper()


def is_nei(gold_label: str) -> bool:
    return gold_label.upper() == NEI


def gold_sentence_groups(evidence: Sequence[Sequence[Sequence]]) -> list[list[Sentence]]:
    """Official gold groups ``[[ann_id, ev_id, page, line], ...]`` -> ``[[(page, line), ...], ...]``.

    NEI groups keep their ``(None, None)`` entries, as in the official code (they never
    match a prediction and are never scored).
    """
    return [[(item[2], item[3]) for item in group] for group in evidence]


def _contains_group(group: Sequence[Sentence], submitted: Sequence[Sentence]) -> bool:
    return all(tuple(item) in submitted for item in group)


def evidence_eligible(gold_label: str, gold_groups: Sequence[Sequence[Sentence]],
                      predicted_evidence: Sequence[Sentence], max_evidence: int | None = MAX_EVIDENCE) -> bool:
    """The evidence condition of the strict score on its own.

    True for a gold-NEI claim (FEVER scores no evidence for NEI); otherwise True when some
    gold group is entirely inside the first ``max_evidence`` predicted items. A non-NEI
    claim with no gold groups is never eligible (as in the official code); an empty group
    is trivially contained.
    """
    if is_nei(gold_label):
        return True
    submitted = [tuple(p) for p in predicted_evidence[:max_evidence]]
    return any(_contains_group(group, submitted) for group in gold_groups)


def unit_evidence_eligible(claim: Mapping, doc_id: str, scored_unit_ids: Sequence[str], *,
                           max_evidence: int, max_evidence_cell: int, max_sentences: int) -> bool:
    """:func:`evidence_eligible` of a CLAIMS row (``label``, ``evidence_groups`` as unit ids) and
    the scored unit ids (``max_evidence_cell`` and ``max_sentences`` unused)."""
    groups = [[unit_id_to_sentence(u) for u in g] for g in claim["evidence_groups"] or []]
    return evidence_eligible(claim["label"], groups, [unit_id_to_sentence(u) for u in scored_unit_ids], max_evidence)


def evidence_macro_precision(gold_label: str, gold_groups: Sequence[Sequence[Sentence]],
                             predicted_evidence: Sequence[Sentence],
                             max_evidence: int | None = MAX_EVIDENCE) -> tuple[float, int]:
    """``(precision, counted)`` of one claim: counted = 0 for gold NEI (precision 0 then).

    Precision = predicted items (first ``max_evidence``, duplicates included) that are any
    gold sentence, divided by their number; 1.0 when nothing was predicted.
    """
    if is_nei(gold_label):
        return 0.0, 0
    gold_items = {tuple(item) for group in gold_groups for item in group if item[1] is not None}
    submitted = [tuple(p) for p in predicted_evidence[:max_evidence]]
    if not submitted:
        return 1.0, 1
    hits = sum(1.0 for item in submitted if item in gold_items)
    return hits / len(submitted), 1


def evidence_macro_recall(gold_label: str, gold_groups: Sequence[Sequence[Sentence]],
                          predicted_evidence: Sequence[Sentence],
                          max_evidence: int | None = MAX_EVIDENCE) -> tuple[float, int]:
    """``(recall, counted)`` of one claim: counted = 0 for gold NEI.

    1.0 if the gold evidence list is empty or a complete group is within the first
    ``max_evidence`` items; 0.0 otherwise (incomplete groups are worth nothing).
    """
    if is_nei(gold_label):
        return 0.0, 0
    if len(gold_groups) == 0:
        return 1.0, 1
    submitted = [tuple(p) for p in predicted_evidence[:max_evidence]]
    if any(_contains_group(group, submitted) for group in gold_groups):
        return 1.0, 1
    return 0.0, 1


def f1_from_precision_recall(precision: float, recall: float) -> float:
    """2PR / (P + R); 0.0 with a warning when P = R = 0 (the official code divides by zero)."""
    if precision + recall == 0:
        warnings.warn("evidence precision and recall are both 0: F1 set to 0.0 "
                      "(the official scorer raises ZeroDivisionError here)", stacklevel=2)
        return 0.0
    return 2.0 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class ClaimScore:
    """Per-claim indicators; ``strict == label_correct and evidence_eligible`` always."""

    label_correct: bool
    evidence_eligible: bool
    strict: bool
    precision: float
    precision_counted: int
    recall: float
    recall_counted: int


def score_claim(gold_label: str, gold_groups: Sequence[Sequence[Sentence]], predicted_label: str,
                predicted_evidence: Sequence[Sentence], max_evidence: int | None = MAX_EVIDENCE) -> ClaimScore:
    """All per-claim quantities of the official scorer for one claim."""
    label_correct = is_correct_label(gold_label, predicted_label)
    eligible = evidence_eligible(gold_label, gold_groups, predicted_evidence, max_evidence)
    precision, p_counted = evidence_macro_precision(gold_label, gold_groups, predicted_evidence, max_evidence)
    recall, r_counted = evidence_macro_recall(gold_label, gold_groups, predicted_evidence, max_evidence)
    return ClaimScore(label_correct, eligible, label_correct and eligible, precision, p_counted, recall, r_counted)


@dataclass(frozen=True)
class CorpusScore:
    strict_score: float
    label_accuracy: float
    precision: float
    recall: float
    f1: float

    def as_dict(self) -> dict:
        return asdict(self)


def corpus_score(claims: Iterable[ClaimScore]) -> CorpusScore:
    """Aggregate per-claim scores as ``fever_score`` does (also used for FEVEROUS).

    Strict score and label accuracy are means over all claims (0.0 with a warning when there
    are no claims; the official code divides by zero). Precision is the mean over counted
    claims (1.0 when none), recall likewise (0.0 when none).
    """
    claims = list(claims)
    if not claims:
        warnings.warn("no claims to score: all scores set to 0.0 (the official scorer divides by zero)",
                      stacklevel=2)
        return CorpusScore(0.0, 0.0, 0.0, 0.0, 0.0)
    total = len(claims)
    strict = sum(1.0 for c in claims if c.strict) / total
    accuracy = sum(1.0 for c in claims if c.label_correct) / total
    p_hits = sum(c.precision_counted for c in claims)
    r_hits = sum(c.recall_counted for c in claims)
    precision = sum(c.precision for c in claims) / p_hits if p_hits > 0 else 1.0
    recall = sum(c.recall for c in claims) / r_hits if r_hits > 0 else 0.0
    return CorpusScore(strict, accuracy, precision, recall, f1_from_precision_recall(precision, recall))


# --- official files ------------------------------------------------------------------


def _label(record: dict, field: str, path, line: int) -> str:
    value = require(record, field, path, line)
    if not isinstance(value, str) or value.upper() not in LABELS:
        raise InputError(path, line, field, f"unknown label {value!r}; expected one of {list(LABELS)}")
    return value


def parse_predicted_evidence(value, path, line: int) -> list[Sentence]:
    """Official ``predicted_evidence``: a list of ``[page<str>, line<int>]`` pairs."""
    if not isinstance(value, list):
        raise InputError(path, line, "predicted_evidence", "must be a list of [page, line] pairs")
    out = []
    for k, item in enumerate(value):
        if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str)
                or not isinstance(item[1], int) or isinstance(item[1], bool)):
            raise InputError(path, line, "predicted_evidence",
                             f"item {k} is {item!r}; expected a [page<string>, line<int>] pair")
        out.append((item[0], item[1]))
    return out


def parse_gold_evidence(value, path, line: int) -> list[list[Sentence]]:
    """Official gold ``evidence``: groups of ``[annotation_id, evidence_id, page, line]``."""
    if not isinstance(value, list) or not all(isinstance(g, list) for g in value):
        raise InputError(path, line, "evidence", "must be a list of evidence groups")
    for group in value:
        for item in group:
            if not isinstance(item, list) or len(item) != 4:
                raise InputError(path, line, "evidence",
                                 f"item {item!r} is not [annotation_id, evidence_id, page, line]")
    return gold_sentence_groups(value)


@dataclass(frozen=True)
class FileScore(CorpusScore):
    """Corpus scores of a submission file plus where its gold came from and how its lines were
    paired: ``matching`` is ``"id"``, ``"position"`` or ``"self"`` (lines scored against their
    own label and evidence, asked for explicitly); ``id_disagreements`` counts positional lines
    whose prediction id differs from the gold id; ``own_gold_ignored`` counts prediction lines
    whose own ``label`` / ``evidence`` were ignored because a gold file was given.
    ``as_dict`` adds ``"matching"`` whenever it is not ``"id"``, ``"id_disagreements"`` with
    positional matching and ``"own_gold_ignored"`` when it is not 0."""

    matching: str = "id"
    id_disagreements: int = 0
    own_gold_ignored: int = 0

    def as_dict(self) -> dict:
        out = asdict(self)
        if self.matching == "id":
            del out["matching"]
        if self.matching != "position":
            del out["id_disagreements"]
        if not self.own_gold_ignored:
            del out["own_gold_ignored"]
        return out

    @classmethod
    def of(cls, corpus: CorpusScore, submission) -> "FileScore":
        """A corpus score together with the pairing facts of a ``records.Submission``."""
        return cls(**corpus.as_dict(), matching=submission.mode, id_disagreements=submission.id_disagreements,
                   own_gold_ignored=submission.own_gold_ignored)


def read_gold(gold_path) -> list[tuple[int, dict]]:
    """The records of a FEVER gold JSONL."""
    return read_jsonl(gold_path)


def scored_lines(gold_path, predictions_path, max_evidence: int | None = MAX_EVIDENCE, *, match: str = "auto",
                 self_contained_gold: bool = False, gold: list | None = None,
                 parsed_gold: dict | None = None) -> tuple[Submission, list[ScoredLine]]:
    """Every line of an official FEVER predictions JSONL scored against a gold JSONL, in gold
    order: how the lines were paired (``records.submission_pairs``) and one
    ``records.ScoredLine`` per claim. Labels outside FEVER's set, a malformed evidence item and
    a line without ``predicted_label`` are InputErrors naming the file and line. Scoring
    several files against one gold file: ``gold`` its records (:func:`read_gold`) and
    ``parsed_gold`` a dict kept across the calls, so the gold file is read and parsed once."""
    if gold is None and gold_path is not None:
        gold = read_gold(gold_path)
    submission = submission_pairs(gold, gold_path, predictions_path, match=match,
                                  self_contained_gold=self_contained_gold)
    lines = scored_pairs(
        submission, predictions_path, parsed_gold=parsed_gold,
        parse_gold=lambda rec, path, line: (_label(rec, "label", path, line),
                                            parse_gold_evidence(require(rec, "evidence", path, line), path, line)),
        parse_prediction=lambda rec, path, line: (_label(rec, "predicted_label", path, line),
                                                  parse_predicted_evidence(rec["predicted_evidence"], path, line)),
        score=lambda gold_label, groups, label, predicted: score_claim(gold_label, groups, label, predicted,
                                                                      max_evidence))
    return submission, lines


def score_files(gold_path, predictions_path, max_evidence: int | None = MAX_EVIDENCE, *,
                match: str = "auto", self_contained_gold: bool = False) -> FileScore:
    """Score an official FEVER predictions JSONL against a gold JSONL.

    Records are paired as ``records.submission_pairs`` does: by id (or by position when asked,
    or when no prediction has an id), and the gold file is the only source of labels and
    evidence. ``self_contained_gold=True`` (with ``gold_path`` None) scores every line against
    its own ``label`` and ``evidence`` instead, as ``fever_score(predictions)`` without
    ``actual`` does.
    """
    submission, lines = scored_lines(gold_path, predictions_path, max_evidence, match=match,
                                     self_contained_gold=self_contained_gold)
    return FileScore.of(corpus_score(line.score for line in lines), submission)
