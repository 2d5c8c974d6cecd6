"""KILT scoring with the semantics of facebookresearch/KILT ``kilt/eval_downstream.py`` and
``kilt/eval_retrieval.py`` (Petroni et al., 2021, *KILT: a Benchmark for Knowledge Intensive
Language Tasks*).

In:  a KILT gold file and a KILT prediction file (JSON lines; read and paired by
     :mod:`~evidence_ledger.scoring.kilt_files`).
Out: per gold item (gold-file order) the downstream metrics and the R-precision of the
     predicted provenance (:class:`KiltItemScores`, :func:`score_kilt_items`), and the file
     scores under the official names (:func:`score_kilt_files`): what
     ``eval_downstream.evaluate`` returns (``kilt``, ``downstream``, ``retrieval``) and, asked
     for, what ``eval_retrieval.evaluate`` returns (``eval_retrieval``), with a ``counts``
     section of what was accepted but is odd.

Per item, ``accuracy``, ``em``, ``f1``, ``rougel`` are exactly what the official
``_calculate_metrics`` adds up (:mod:`~evidence_ledger.scoring.kilt_answers`), so their means
are the official downstream scores, and the mean of ``metric * (rprec == 1)`` with the rank key
``wikipedia_id`` is the official ``KILT-<metric>``. Means are summed in gold order, as the
official loops sum.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .kilt_answers import answer_metrics, gold_answers
from .kilt_files import pair_kilt_predictions, read_kilt_gold, read_kilt_predictions
from .kilt_retrieval import (distinct_ids, has_rank_keys, item_retrieval_metrics, r_precision, rank_metrics,
                             retrieval_means)
from .rouge_l import rouge_sentences

KILT_METRICS = ("accuracy", "em", "f1", "rougel")  # the downstream metrics, in the official order
KILT_RANK_KEYS = ("wikipedia_id",)  # the rank key of the official KILT-* scores and eval_downstream's retrieval
DOWNSTREAM_KS = (1, 5)  # the cut-offs eval_downstream passes to the retrieval metrics
RETRIEVAL_KS = (1, 5, 10, 20)  # eval_retrieval's command-line default

# counted oddities that the official code accepts silently or skips; warned on stderr when non-zero
WARNED_FACTS = {
    "empty_answers": "predictions with an empty answer, scored 0 on every metric (they count in the mean)",
    "non_string_answers": "answers that are not strings, scored as str(answer) as KILT does",
    "rougel_empty_hypotheses": "non-empty answers without any ROUGE sentence (only dots), ROUGE-L 0",
    "rougel_empty_references": "gold answers without any ROUGE sentence (only dots), ROUGE-L 0 against them",
    "predicted_provenance_missing_rank_key": "predicted provenance entries without every rank key, skipped",
    "gold_provenance_missing_rank_key": "gold provenance entries without every rank key, skipped for R-precision",
    "predictions_without_provenance": "predictions without a provenance list, scored as retrieving nothing",
    "gold_items_without_input": "gold items without input: entity_in_input is null",
}


@dataclass(frozen=True)
class KiltItemScores:
    """One KILT prediction file scored against a gold file, per gold item (gold-file order)."""

    ids: list[str]          # gold ids as the official code compares them: str(id).strip()
    gold_lines: list[int]   # 1-based line of each gold item
    accuracy: np.ndarray    # float64 (K,): strict string match of the answer (official "accuracy")
    em: np.ndarray          # normalised exact match, max over gold answers
    f1: np.ndarray          # normalised token F1, max over gold answers
    rougel: np.ndarray      # ROUGE-L F as KILT computes it, max over gold answers
    rprec: np.ndarray       # R-precision of the prediction's provenance under the call's rank keys
    facts: dict = field(default_factory=dict)  # counted oddities (see WARNED_FACTS and score_kilt_items)

    def metric(self, name: str) -> np.ndarray:
        """The per-item array of a downstream metric named as in :data:`KILT_METRICS`."""
        if name not in KILT_METRICS:
            raise ValueError(f"unknown KILT metric {name!r}; expected one of {KILT_METRICS}")
        return getattr(self, name)


def official_mean(values: np.ndarray) -> float:
    """Sum in item order, then divide by the count (the official loops' arithmetic; 0.0 if empty)."""
    if len(values) == 0:
        return 0.0
    return float(np.add.accumulate(np.asarray(values, dtype=np.float64))[-1] / len(values))


def predicted_id_lists(outputs: Sequence[dict], rank_keys: Sequence[str]) -> list[list[str]]:
    """Per predicted output, the :func:`~.kilt_retrieval.distinct_ids` of its provenance."""
    return [distinct_ids(output.get("provenance", ()), rank_keys) for output in outputs]


def provenance_facts(gold: Sequence[dict], outputs: Sequence[dict], rank_keys: Sequence[str],
                     predicted_ids: Sequence[Sequence[str]] | None = None) -> dict:
    """Counts of provenance the scores skip or merge under ``rank_keys``; ``predicted_ids``: the
    outputs' :func:`predicted_id_lists` under the same keys, when already computed."""
    gold_missing = sum(1 for item in gold for output in item["record"]["output"]
                       for entry in output.get("provenance", ()) if not has_rank_keys(entry, rank_keys))
    predicted = [output.get("provenance", []) for output in outputs]
    complete = [sum(1 for entry in provenance if has_rank_keys(entry, rank_keys)) for provenance in predicted]
    if predicted_ids is None:
        predicted_ids = predicted_id_lists(outputs, rank_keys)
    return {
        "gold_provenance_missing_rank_key": gold_missing,
        "predicted_provenance_missing_rank_key": sum(len(p) - c for p, c in zip(predicted, complete)),
        "predicted_provenance_duplicates": sum(c - len(ids) for c, ids in zip(complete, predicted_ids)),
    }


def answer_facts(gold: Sequence[dict], outputs: Sequence[dict]) -> dict:
    """Counts of answers the scores treat specially (see :data:`WARNED_FACTS`)."""
    answers = [str(output["answer"]).strip() for output in outputs]
    gold_outputs = [output for item in gold for output in item["record"]["output"]]
    return {
        "empty_answers": sum(1 for answer in answers if not answer),
        "non_string_answers": sum(1 for output in outputs if not isinstance(output["answer"], str)),
        "rougel_empty_hypotheses": sum(1 for answer in answers if answer and not rouge_sentences(answer)),
        "rougel_empty_references": sum(1 for item in gold for answer in gold_answers(item["record"]["output"])
                                       if not rouge_sentences(answer)),
        "gold_outputs_without_answer": sum(1 for o in gold_outputs
                                           if not (isinstance(o.get("answer"), str) and o["answer"].strip())),
        "gold_outputs_without_provenance": sum(1 for o in gold_outputs if "provenance" not in o),
        "predictions_without_provenance": sum(1 for output in outputs if "provenance" not in output),
    }


def warn_facts(facts: dict, predictions_path) -> None:
    """One warning per non-zero counted oddity of :data:`WARNED_FACTS`."""
    for name, what in WARNED_FACTS.items():
        if facts.get(name):
            warnings.warn(f"{predictions_path}: {facts[name]} {what} (counted as {name!r})", stacklevel=3)


def read_kilt_submission(gold_path, predictions_path, gold: Sequence[dict] | None = None, *,
                         retrieval_only: bool = False) -> tuple[list[dict], list[dict], int]:
    """``(gold items, their predicted outputs, prediction ids not in the gold)``."""
    gold = read_kilt_gold(gold_path, require_answer=not retrieval_only) if gold is None else list(gold)
    predictions = read_kilt_predictions(predictions_path, retrieval_only=retrieval_only)
    outputs, extra = pair_kilt_predictions(gold, predictions, gold_path, predictions_path)
    return gold, outputs, extra


def item_arrays(gold: Sequence[dict], outputs: Sequence[dict], predicted_ids: Sequence[Sequence[str]],
                rank_keys: Sequence[str], with_rouge: bool = True) -> dict[str, np.ndarray]:
    """Per item the four downstream metrics and the R-precision of ``predicted_ids`` under
    ``rank_keys``; ``with_rouge=False`` leaves ROUGE-L uncomputed (NaN, never a score)."""
    rows = []
    for item, output, ids in zip(gold, outputs, predicted_ids):
        outputs_gold = item["record"]["output"]
        metrics = answer_metrics(str(output["answer"]).strip(), gold_answers(outputs_gold), with_rouge=with_rouge)
        rows.append((*metrics, r_precision(ids, outputs_gold, rank_keys)))
    table = np.array(rows, dtype=np.float64).reshape(len(rows), len(KILT_METRICS) + 1)
    arrays = {name: table[:, index].copy() for index, name in enumerate(KILT_METRICS)}
    if not with_rouge:
        arrays["rougel"][:] = np.nan
    arrays["rprec"] = table[:, len(KILT_METRICS)].copy()
    return arrays


def items_of_submission(gold: Sequence[dict], outputs: Sequence[dict], extra: int,
                        rank_keys: Sequence[str], with_rouge: bool = True) -> KiltItemScores:
    """The :class:`KiltItemScores` of paired gold items and predicted outputs (no warnings)."""
    predicted_ids = predicted_id_lists(outputs, rank_keys)
    facts = {**answer_facts(gold, outputs), **provenance_facts(gold, outputs, rank_keys, predicted_ids),
             "predictions_not_in_gold": extra}
    return KiltItemScores(ids=[item["id"] for item in gold], gold_lines=[item["line"] for item in gold],
                          facts=facts, **item_arrays(gold, outputs, predicted_ids, rank_keys, with_rouge))


def score_kilt_items(gold_path, predictions_path, *, rank_keys: Sequence[str] = KILT_RANK_KEYS,
                     gold: Sequence[dict] | None = None, metrics: Sequence[str] = KILT_METRICS) -> KiltItemScores:
    """Score ``predictions_path`` against the gold per item (see module doc). ``gold``: the
    items :func:`read_kilt_gold` returned for ``gold_path``, so that several prediction files
    are scored against one reading. ``metrics``: the downstream metrics the caller reads; ROUGE-L,
    the costly one, is computed only when named (else NaN). ``facts`` counts the oddities of
    :data:`WARNED_FACTS` (warned when non-zero) plus ``predictions_not_in_gold``,
    ``predicted_provenance_duplicates`` and the gold outputs without answer or provenance."""
    items = items_of_submission(*read_kilt_submission(gold_path, predictions_path, gold), tuple(rank_keys),
                                with_rouge="rougel" in metrics)
    warn_facts(items.facts, predictions_path)
    return items


def downstream_scores(items: KiltItemScores) -> dict:
    """``eval_downstream``'s ``kilt`` and ``downstream`` sections from the per-item scores
    (``items`` scored with the rank key ``wikipedia_id``)."""
    eligible = items.rprec == 1
    return {
        "kilt": {f"KILT-{name}": official_mean(items.metric(name) * eligible) for name in KILT_METRICS},
        "downstream": {name: official_mean(items.metric(name)) for name in KILT_METRICS},
    }


def retrieval_items(gold: Sequence[dict], outputs: Sequence[dict], ks: Sequence[int],
                    rank_keys: Sequence[str]) -> list[dict]:
    """Per item every retrieval metric of ``eval_retrieval``."""
    return [item_retrieval_metrics(output.get("provenance", []), item["record"], ks, rank_keys)
            for item, output in zip(gold, outputs)]


def downstream_retrieval(gold: Sequence[dict], outputs: Sequence[dict], items: KiltItemScores) -> dict:
    """``eval_downstream``'s ``retrieval`` section: ``Rprec`` and ``recall@5`` (rank key ``wikipedia_id``)."""
    recall = np.array([rank_metrics(distinct_ids(output.get("provenance", ()), KILT_RANK_KEYS),
                                    item["record"]["output"], DOWNSTREAM_KS[-1:], KILT_RANK_KEYS)["recall@5"]
                       for item, output in zip(gold, outputs)], dtype=np.float64)
    return {"Rprec": official_mean(items.rprec), "recall@5": official_mean(recall)}


def eval_retrieval_scores(gold: Sequence[dict], outputs: Sequence[dict], ks: Sequence[int] | None,
                          rank_keys: Sequence[str] | None) -> tuple[dict, dict]:
    """``({"eval_retrieval": ..., "settings": ...}, counts)``: ``eval_retrieval.evaluate``'s
    result (default ks 1,5,10,20, rank key ``wikipedia_id``) and the provenance counts under
    its rank keys."""
    ks = sorted(RETRIEVAL_KS if ks is None else ks)
    rank_keys = tuple(KILT_RANK_KEYS if rank_keys is None else rank_keys)
    result = {"eval_retrieval": retrieval_means(retrieval_items(gold, outputs, ks, rank_keys), ks),
              "settings": {"ks": list(ks), "rank_keys": list(rank_keys)}}
    counts = {**provenance_facts(gold, outputs, rank_keys),
              "gold_items_without_input": sum(1 for item in gold if "input" not in item["record"])}
    return result, counts


def score_kilt_files(gold_path, predictions_path, *, ks: Sequence[int] | None = None,
                     rank_keys: Sequence[str] | None = None, retrieval_only: bool = False) -> dict:
    """The ``score kilt`` JSON: ``kilt``, ``downstream``, ``retrieval`` (``Rprec``,
    ``recall@5``) as ``eval_downstream.evaluate`` returns them; with ``ks`` or ``rank_keys``
    also ``eval_retrieval`` and ``settings`` (:func:`eval_retrieval_scores`); and ``counts``
    (``items`` and the facts of :func:`score_kilt_items`; under ``eval_retrieval`` the
    provenance counts of its rank keys). ``retrieval_only``: ``eval_retrieval.evaluate``
    alone, on files without answers (``eval_retrieval``, ``settings``, ``counts``)."""
    gold, outputs, extra = read_kilt_submission(gold_path, predictions_path, retrieval_only=retrieval_only)
    result: dict = {}
    counts: dict = {"items": len(gold)}
    if retrieval_only:
        counts["predictions_not_in_gold"] = extra
    else:
        items = items_of_submission(gold, outputs, extra, KILT_RANK_KEYS)
        warn_facts(items.facts, predictions_path)
        result.update(downstream_scores(items))
        result["retrieval"] = downstream_retrieval(gold, outputs, items)
        counts.update(items.facts)
    if retrieval_only or ks is not None or rank_keys is not None:
        retrieval, counts["eval_retrieval"] = eval_retrieval_scores(gold, outputs, ks, rank_keys)
        result.update(retrieval)
        rank_keys = retrieval["settings"]["rank_keys"]
        warn_facts({name: count for name, count in counts["eval_retrieval"].items()
                    if retrieval_only or rank_keys != list(KILT_RANK_KEYS) or name not in counts},
                   f"{predictions_path} (eval_retrieval, rank keys {','.join(rank_keys)})")
    result["counts"] = counts
    return result
