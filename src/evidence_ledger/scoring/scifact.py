"""SciFact scoring with the semantics of allenai/scifact (``verisci/evaluate/pipeline.py``,
``lib/metrics.py``) and of its leaderboard evaluator (allenai/scifact-evaluator ``eval.py``).

In:  per claim the gold evidence ``{doc_id: GoldAbstract(label, rationales)}`` and the
     predictions ``{doc_id: PredictedAbstract(label, sentences)}`` (sentences in predicted
     order). Labels: ``SUPPORT`` / ``CONTRADICT``.
Out: per-abstract and per-claim counts (:class:`Counts`) and the four metrics
     ``abstract_label_only``, ``abstract_rationalized``, ``sentence_selection``,
     ``sentence_label``, each ``{"precision", "recall", "f1"}``.

Rules:
* abstract level: every predicted abstract is *retrieved*; it is *correct (label only)* when
  it is a gold abstract and its label equals the gold label, *correct (rationalized)* when in
  addition some gold rationale set is inside its first 3 predicted sentences; *relevant* =
  number of gold abstracts of the claim (claims absent from the predictions still count);
* sentence level: every predicted sentence (untruncated) is retrieved; a predicted sentence of
  a gold abstract is correct (selection) when it belongs to a gold rationale all of whose
  sentences were predicted; correct (label) when in addition the abstract label is right;
  relevant = gold rationale sentences;
* P = correct / retrieved, R = correct / relevant, F1 = 2PR/(P+R), each 0.0 on a zero
  denominator (the evaluator's ``safe_divide``);
* a predicted label other than SUPPORT / CONTRADICT is an error (the pipeline's own NOINFO /
  INVALID answers are handled by the indicator tables, where they are simply not submitted).

Files (``score_files``, the ``score scifact`` command): document ids compare as integers, as
the repo evaluator's ``int(doc_id)`` does (``"0101"`` and ``101`` are one abstract; a
non-integer id is an error). Two sentence caps for the abstract-rationalized metric:
``"fixed"`` (default) keeps the first 3 predicted sentences, as ``verisci/evaluate/lib/metrics.py``
and the first leaderboard evaluator did; ``"leaderboard"`` keeps the first
``max(3, length of the shortest gold rationale of that abstract)``, as allenai/scifact-evaluator
``eval.py`` does since commit 6e3ed95 ("Case where shortest rationale is >3 sentences"); the
two differ only for abstracts whose every gold rationale has more than 3 sentences.
Claims missing from the predictions (``missing``, the ``--missing-claims`` option): refused by
default, as the leaderboard requires a prediction line for every claim; ``"empty"`` counts them
in recall (their gold abstracts and sentences are relevant), as the leaderboard scores an empty
``evidence``; ``"skip"`` leaves them out of recall altogether, as the repo evaluator does
(``compute_metrics`` loops over the *predicted* claims), so its recall is higher. An empty
prediction file is always an error, and so is an abstract listed twice under two spellings
of one integer id (the evaluator's ``res[int(key)]`` keeps the last silently).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from evidence_ledger.benchmark_registry import SCIFACT
from evidence_ledger.errors import InputError
from evidence_ledger.vocabulary import split_scifact_unit_id

from .records import match_records, read_jsonl, require

LABELS = SCIFACT.verdict_labels
NOINFO = SCIFACT.nei_label
MAX_ABSTRACT_SENTS = SCIFACT.scorer_caps["max_sentences"]
SENTENCE_CAPS = ("fixed", "leaderboard")


@dataclass(frozen=True)
class GoldAbstract:
    label: str
    rationales: tuple  # tuple of frozensets of sentence indices


@dataclass(frozen=True)
class PredictedAbstract:
    label: str
    sentences: tuple  # predicted sentence indices, in predicted order


def contains_rationale(gold_rationales: Iterable[frozenset], predicted_sentences: Sequence[int],
                       max_sentences: int | None = MAX_ABSTRACT_SENTS) -> bool:
    """Some gold rationale set is a subset of the first ``max_sentences`` predicted sentences."""
    submitted = set(predicted_sentences[:max_sentences])
    return any(set(r) <= submitted for r in gold_rationales)


def count_rationale_sentences(gold_rationales: Sequence[frozenset], predicted_sentences: Iterable[int]) -> int:
    """Predicted sentences (as a set) that lie in a gold rationale whose sentences were all predicted.

    A sentence in two gold rationales is malformed gold (the official code asserts).
    """
    predicted = set(predicted_sentences)
    n_correct = 0
    for ix in predicted:
        containing = [r for r in gold_rationales if ix in r]
        if len(containing) > 1:
            raise ValueError(f"sentence {ix} belongs to two gold rationales")
        if containing and set(containing[0]) <= predicted:
            n_correct += 1
    return n_correct


def abstract_label_correct(gold: Mapping[str, GoldAbstract], doc_id: str, predicted_label: str) -> bool:
    """The abstract is a gold abstract of the claim and the predicted label equals its label."""
    return doc_id in gold and gold[doc_id].label == predicted_label


def abstract_eligible(gold: Mapping[str, GoldAbstract], doc_id: str, predicted_sentences: Sequence[int],
                      max_sentences: int | None = MAX_ABSTRACT_SENTS) -> bool:
    """Evidence condition alone: gold abstract and a complete gold rationale in the first 3 sentences."""
    return doc_id in gold and contains_rationale(gold[doc_id].rationales, predicted_sentences, max_sentences)


@dataclass
class Counts:
    """Additive scoring counts (per abstract, per claim or per corpus)."""

    abstract_relevant: int = 0
    abstract_retrieved: int = 0
    abstract_correct_label_only: int = 0
    abstract_correct_rationalized: int = 0
    sentence_relevant: int = 0
    sentence_retrieved: int = 0
    sentence_correct_selection: int = 0
    sentence_correct_label: int = 0

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple())))

    def as_tuple(self) -> tuple:
        return (self.abstract_relevant, self.abstract_retrieved, self.abstract_correct_label_only,
                self.abstract_correct_rationalized, self.sentence_relevant, self.sentence_retrieved,
                self.sentence_correct_selection, self.sentence_correct_label)


def unit_sentence(unit_id: str, doc_id: str) -> int:
    """Sentence index of pipeline unit id ``"{doc_id}:{sent}"``; an id of another abstract is an error."""
    doc, sent = split_scifact_unit_id(unit_id)
    if doc != doc_id:
        raise ValueError(f"SciFact unit id {unit_id!r} submitted for abstract {doc_id!r}")
    return sent


def claim_gold_abstracts(claim: Mapping) -> dict[str, GoldAbstract]:
    """CLAIMS row -> ``{doc_id: GoldAbstract}``; rationales are the evidence groups of that abstract."""
    rationales: dict[str, list[frozenset]] = {}
    for group in claim["evidence_groups"] or []:
        docs = {split_scifact_unit_id(u)[0] for u in group}
        if len(docs) != 1:
            raise ValueError(f"claim {claim['claim_id']}: SciFact evidence group {list(group)} spans abstracts {docs}")
        doc = docs.pop()
        rationales.setdefault(doc, []).append(frozenset(unit_sentence(u, doc) for u in group))
    gold = {}
    for abstract in claim["gold_abstracts"] or []:
        doc = str(abstract["doc_id"])
        gold[doc] = GoldAbstract(abstract["label"], tuple(rationales.get(doc, ())))
    return gold


def unit_evidence_eligible(claim: Mapping, doc_id: str, scored_unit_ids: Sequence[str], *,
                           max_evidence: int, max_evidence_cell: int, max_sentences: int) -> bool:
    """:func:`abstract_eligible` of a CLAIMS row and the scored unit ids of abstract ``doc_id``.

    A unit of another abstract (e.g. a swap control) occupies one of the ``max_sentences``
    slots but matches no rationale (``max_evidence`` / ``max_evidence_cell`` unused)."""
    sentences = [unit_sentence(u, doc_id) if u.rpartition(":")[0] == doc_id else None for u in scored_unit_ids]
    return abstract_eligible(claim_gold_abstracts(claim), doc_id, sentences, max_sentences)


def predicted_abstract_counts(gold: Mapping[str, GoldAbstract], doc_id: str, prediction: PredictedAbstract,
                              max_sentences: int | None = MAX_ABSTRACT_SENTS) -> Counts:
    """Counts contributed by one predicted abstract (retrieved and correct, no relevant)."""
    label_correct = abstract_label_correct(gold, doc_id, prediction.label)
    rationalized = label_correct and contains_rationale(gold[doc_id].rationales, prediction.sentences, max_sentences)
    n_selection = count_rationale_sentences(gold[doc_id].rationales, prediction.sentences) if doc_id in gold else 0
    return Counts(
        abstract_retrieved=1,
        abstract_correct_label_only=int(label_correct),
        abstract_correct_rationalized=int(rationalized),
        sentence_retrieved=len(prediction.sentences),
        sentence_correct_selection=n_selection,
        sentence_correct_label=n_selection if label_correct else 0,
    )


def relevant_counts(gold: Mapping[str, GoldAbstract]) -> Counts:
    """Counts of one claim that do not depend on predictions: gold abstracts and rationale sentences."""
    return Counts(abstract_relevant=len(gold),
                  sentence_relevant=sum(len(r) for a in gold.values() for r in a.rationales))


def leaderboard_cap(gold_abstract: GoldAbstract, max_sentences: int = MAX_ABSTRACT_SENTS) -> int:
    """The leaderboard's sentence cap for one gold abstract: ``max(3, shortest gold rationale)``."""
    return max(max_sentences, min(len(r) for r in gold_abstract.rationales))


def claim_counts(gold: Mapping[str, GoldAbstract], predictions: Mapping[str, PredictedAbstract] | None,
                 max_sentences: int | None = MAX_ABSTRACT_SENTS, sentence_cap: str = "fixed") -> Counts:
    """All counts of one claim; ``predictions`` None or {} for a claim that predicts nothing.

    ``sentence_cap="leaderboard"`` raises the cap of a gold abstract to :func:`leaderboard_cap`.
    """
    if sentence_cap not in SENTENCE_CAPS:
        raise ValueError(f"sentence_cap must be one of {SENTENCE_CAPS}, got {sentence_cap!r}")
    counts = relevant_counts(gold)
    for doc_id, prediction in (predictions or {}).items():
        cap = max_sentences
        if sentence_cap == "leaderboard" and doc_id in gold and max_sentences is not None:
            cap = leaderboard_cap(gold[doc_id], max_sentences)
        counts = counts + predicted_abstract_counts(gold, doc_id, prediction, cap)
    return counts


def precision_recall_f1(correct: int, retrieved: int, relevant: int) -> dict:
    """``{"precision", "recall", "f1"}`` with 0.0 on any zero denominator."""
    precision = correct / retrieved if retrieved else 0.0
    recall = correct / relevant if relevant else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def metrics_from_counts(c: Counts) -> dict:
    """The four official metrics from corpus counts."""
    return {
        "abstract_label_only": precision_recall_f1(c.abstract_correct_label_only, c.abstract_retrieved,
                                                   c.abstract_relevant),
        "abstract_rationalized": precision_recall_f1(c.abstract_correct_rationalized, c.abstract_retrieved,
                                                     c.abstract_relevant),
        "sentence_selection": precision_recall_f1(c.sentence_correct_selection, c.sentence_retrieved,
                                                  c.sentence_relevant),
        "sentence_label": precision_recall_f1(c.sentence_correct_label, c.sentence_retrieved,
                                              c.sentence_relevant),
    }


def scifact_score(gold_claims: Mapping[str, Mapping[str, GoldAbstract]],
                  predictions: Mapping[str, Mapping[str, PredictedAbstract]],
                  max_sentences: int | None = MAX_ABSTRACT_SENTS, sentence_cap: str = "fixed") -> dict:
    """Corpus metrics; one contribution per gold claim (claims missing from ``predictions`` count)."""
    unknown = sorted(set(predictions) - set(gold_claims))
    if unknown:
        raise KeyError(f"predictions for claims not in the gold data: {unknown[:5]}")
    total = Counts()
    for claim_id, gold in gold_claims.items():
        total = total + claim_counts(gold, predictions.get(claim_id), max_sentences, sentence_cap)
    return metrics_from_counts(total)


# --- official files ------------------------------------------------------------------


def _sentence_list(value, path, line: int, field: str) -> tuple:
    if not isinstance(value, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in value):
        raise InputError(path, line, field, f"sentences must be a list of integers, got {value!r}")
    return tuple(value)


def doc_key(doc_id, path, line: int) -> str:
    """Canonical abstract id of a file: the integer the evaluator's ``int(doc_id)`` gives, as text."""
    try:
        return str(int(doc_id))
    except (TypeError, ValueError):
        raise InputError(path, line, "evidence", f"document id {doc_id!r} is not an integer") from None


def refuse_repeated_abstract(seen: Mapping[str, object], key: str, doc_id, path, line: int) -> None:
    """InputError when abstract ``key`` is already in ``seen`` under another spelling (``"12"`` and
    ``"012"``): the evaluator's ``res[int(key)] = ...`` would keep the last one silently."""
    if key in seen:
        raise InputError(path, line, "evidence", f"abstract {key} is listed twice (as {doc_id!r} and another "
                                                 f"spelling of the same integer id)")


def parse_gold_evidence(value, path, line: int) -> dict[str, GoldAbstract]:
    """Official ``evidence``: ``{doc_id: [{"sentences": [...], "label": L}, ...]}`` (one label per abstract)."""
    if not isinstance(value, dict):
        raise InputError(path, line, "evidence", "must be an object {doc_id: [rationales]}")
    gold = {}
    for doc_id, rationales in value.items():
        if not isinstance(rationales, list) or not rationales:
            raise InputError(path, line, "evidence", f"abstract {doc_id}: expected a non-empty list of rationales")
        labels = {r.get("label") for r in rationales if isinstance(r, dict)}
        if len(labels) != 1 or not labels <= set(LABELS):
            raise InputError(path, line, "evidence",
                             f"abstract {doc_id}: rationale labels {sorted(map(str, labels))}; expected one of "
                             f"{list(LABELS)} shared by all rationales")
        sets = tuple(frozenset(_sentence_list(r.get("sentences"), path, line, "evidence")) for r in rationales)
        seen: set = set()
        for s in sets:
            if seen & s:
                raise InputError(path, line, "evidence", f"abstract {doc_id}: a sentence is in two rationales")
            seen |= s
        key = doc_key(doc_id, path, line)
        refuse_repeated_abstract(gold, key, doc_id, path, line)
        gold[key] = GoldAbstract(labels.pop(), sets)
    return gold


def parse_predicted_evidence(value, path, line: int) -> dict[str, PredictedAbstract]:
    """Official prediction ``evidence``: ``{doc_id: {"sentences": [...], "label": SUPPORT|CONTRADICT}}``."""
    if not isinstance(value, dict):
        raise InputError(path, line, "evidence", "must be an object {doc_id: {sentences, label}}")
    out = {}
    for doc_id, pred in value.items():
        if not isinstance(pred, dict):
            raise InputError(path, line, "evidence", f"abstract {doc_id}: expected {{sentences, label}}")
        label = pred.get("label")
        if label not in LABELS:
            raise InputError(path, line, "evidence",
                             f"abstract {doc_id}: label {label!r} not allowed; expected one of {list(LABELS)}")
        key = doc_key(doc_id, path, line)
        refuse_repeated_abstract(out, key, doc_id, path, line)
        out[key] = PredictedAbstract(label, _sentence_list(pred.get("sentences"), path, line, "evidence"))
    return out


MISSING_CLAIMS = ("refuse", "empty", "skip")


def read_gold(path) -> dict[str, dict[str, GoldAbstract]]:
    """``claims_*.jsonl`` -> ``{claim_id: {doc_id: GoldAbstract}}`` in file order."""
    gold = {}
    for line, rec in read_jsonl(path, unique_keys=True):
        claim_id = str(require(rec, "id", path, line))
        if claim_id in gold:
            raise InputError(path, line, "id", f"claim id {claim_id} occurs twice")
        gold[claim_id] = parse_gold_evidence(require(rec, "evidence", path, line), path, line)
    return gold


def claims_without_prediction(pairs) -> list[tuple[int, str]]:
    """``(gold line, claim id)`` of every gold claim paired with no prediction, in gold order."""
    return [(g_line, str(g_rec["id"])) for (g_line, g_rec), pred in pairs if pred is None]


def score_files(gold_path, predictions_path, max_sentences: int | None = MAX_ABSTRACT_SENTS,
                sentence_cap: str = "fixed", missing: str = "refuse") -> dict:
    """Score an official SciFact predictions JSONL against ``claims_*.jsonl`` (matched by id;
    document ids as integers, one abstract listed under two spellings is an error;
    ``sentence_cap`` ``"fixed"`` or ``"leaderboard"``, see module doc).

    An empty prediction file is an error. Gold claims without a prediction line (``missing``):
    ``"refuse"`` (default; the leaderboard evaluator needs a line for every claim) is an
    InputError naming the first one and the count; ``"empty"`` scores each as predicting nothing
    (they count in recall, as the leaderboard scores an empty ``evidence``); ``"skip"`` leaves them
    out altogether, as the repository evaluator's ``compute_metrics`` (a loop over the predicted
    claims) does. Either way the result then carries ``"missing_claims": {"count", "scored_as"}``.
    """
    gold, predictions, absent = read_submission(gold_path, predictions_path, missing)
    scored_gold = gold
    if missing == "skip":
        scored_gold = {claim_id: abstracts for claim_id, abstracts in gold.items() if claim_id in predictions}
    result = scifact_score(scored_gold, predictions, max_sentences, sentence_cap)
    if absent:
        warnings.warn(f"{len(absent)} of {len(gold)} claims of {gold_path} have no prediction in "
                      f"{predictions_path}: scored as {missing!r} (counted as 'missing_claims')", stacklevel=2)
        result["missing_claims"] = {"count": len(absent), "scored_as": missing}
    return result


def read_submission(gold_path, predictions_path, missing: str = "refuse"
                    ) -> tuple[dict[str, dict[str, GoldAbstract]], dict[str, dict[str, PredictedAbstract]], list]:
    """``(gold, predictions, absent)`` of an official SciFact predictions JSONL matched by id to
    ``claims_*.jsonl``: ``gold`` claim id -> ``{doc_id: GoldAbstract}`` (file order),
    ``predictions`` claim id -> ``{doc_id: PredictedAbstract}`` for the claims that have a line,
    ``absent`` the ``(gold line, claim id)`` of the others (``missing`` ``"refuse"``: an
    InputError naming the first). An empty file, an unknown or repeated claim id, a label other
    than SUPPORT / CONTRADICT and a malformed line are InputErrors naming the file and line."""
    if missing not in MISSING_CLAIMS:
        raise ValueError(f"missing must be one of {MISSING_CLAIMS}, got {missing!r}")
    gold_records = read_jsonl(gold_path, unique_keys=True)
    gold = read_gold(gold_path)
    predictions_records = read_jsonl(predictions_path, unique_keys=True)
    if not predictions_records:
        raise InputError(predictions_path, None, None, f"no predictions (the file has no records; {gold_path} "
                                                       f"has {len(gold)} claims)")
    for line, rec in predictions_records:
        require(rec, "id", predictions_path, line)
    _, pairs, _ = match_records(gold_records, predictions_records, gold_path, predictions_path, allow_missing=True)
    absent = claims_without_prediction(pairs)
    if absent and missing == "refuse":
        first_line, first_id = absent[0]
        raise InputError(gold_path, first_line, "id",
                         f"claim id {first_id!r} has no prediction in {predictions_path} ({len(absent)} of "
                         f"{len(gold)} claims have none; --missing-claims empty scores them as predicting "
                         f"nothing, --missing-claims skip leaves them out as the repository evaluator does)")
    predictions = {}
    for (_, g_rec), pred in pairs:
        if pred is not None:
            p_line, p_rec = pred
            predictions[str(g_rec["id"])] = parse_predicted_evidence(
                require(p_rec, "evidence", predictions_path, p_line), predictions_path, p_line)
    return gold, predictions, absent
