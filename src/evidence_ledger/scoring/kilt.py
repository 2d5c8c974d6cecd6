"""KILT scoring with the semantics of facebookresearch/KILT ``kilt/eval_downstream.py`` and
``kilt/eval_retrieval.py`` (Petroni et al., 2021, *KILT: a Benchmark for Knowledge Intensive
Language Tasks*).

In:  a KILT gold file and a KILT prediction file (JSON lines; read and paired by
     :mod:`~evidence_ledger.scoring.kilt_files`, the prediction file as a stream: each line is
     reduced to the per-item numbers the scores need, :class:`LineScorer`, and dropped, so
     memory holds the gold file and one number per item and metric, whatever the prediction
     file's size).
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
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

import numpy as np

from .kilt_answers import answer_metrics, gold_answers
from .kilt_files import PairedPredictions, read_kilt_gold
from .kilt_retrieval import (context_values, gold_context, gold_evidence, predicted_ranking, rank_values,
                             retrieval_keys)
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


def answer_numbers(output: dict, answers: set[str], with_rouge: bool) -> dict:
    """The four downstream metrics of one predicted output against the gold ``answers`` (ROUGE-L
    NaN unless ``with_rouge``), and its answer oddities (0 or 1 each)."""
    answer = str(output["answer"]).strip()
    accuracy, em, f1, rougel = answer_metrics(answer, answers, with_rouge=with_rouge)
    return {"accuracy": accuracy, "em": em, "f1": f1, "rougel": rougel if with_rouge else np.nan,
            "empty_answers": int(not answer), "non_string_answers": int(not isinstance(output["answer"], str)),
            "rougel_empty_hypotheses": int(bool(answer) and not rouge_sentences(answer)),
            "predictions_without_provenance": int("provenance" not in output)}


class LineScorer:
    """Reduces one predicted output (paired with gold item ``position``) to the numbers the
    scores need: the answer numbers (:func:`answer_numbers`, when ``answers``), per choice of
    rank keys in ``rankings`` R-precision and the ``@k`` values of its cut-offs, keyed
    ``(rank keys, name)``, with the predicted entries it skipped or merged, and, for the cut-offs
    ``context_ks``, the in-context values. The gold evidence of every choice is built once."""

    def __init__(self, gold: Sequence[dict], *, answers: bool, with_rouge: bool = True,
                 rankings: dict[tuple[str, ...], tuple[int, ...]], context_ks: tuple[int, ...] = ()):
        records = [item["record"] for item in gold]
        self.answers = [gold_answers(record["output"]) for record in records] if answers else None
        self.with_rouge = with_rouge
        self.rankings = rankings
        self.evidence = {keys: [gold_evidence(record["output"], keys) for record in records] for keys in rankings}
        self.context_ks = context_ks
        self.contexts = [gold_context(record) for record in records] if context_ks else None

    def __call__(self, position: int, output: dict) -> dict:
        numbers = answer_numbers(output, self.answers[position], self.with_rouge) if self.answers else {}
        provenance = output.get("provenance", ())
        for keys, ks in self.rankings.items():
            evidence = self.evidence[keys][position]
            ranking = predicted_ranking(provenance, keys, evidence.wanted)
            for name, value in rank_values(ranking, evidence, ks).items():
                numbers[keys, name] = value
            numbers[keys, "predicted_provenance_missing_rank_key"] = ranking.skipped
            numbers[keys, "predicted_provenance_duplicates"] = ranking.duplicates
        if self.context_ks:
            numbers.update(context_values(provenance, self.contexts[position], self.context_ks))
        return numbers


def scored_columns(lines: Iterable[tuple[int, dict]], scorer: LineScorer, size: int) -> dict:
    """Per number of ``scorer`` a float64 array over the ``size`` gold items, filled line by line
    from the stream ``lines`` of ``(gold position, output)``."""
    columns: dict = {}
    for position, output in lines:
        for name, value in scorer(position, output).items():
            if name not in columns:
                columns[name] = np.zeros(size, dtype=np.float64)
            columns[name][position] = value
    return columns


def column_total(columns: dict, name) -> int:
    """The sum of a count column (0 when nothing was read)."""
    return int(columns[name].sum()) if name in columns else 0


def gold_facts(gold: Sequence[dict], scorer: LineScorer) -> dict:
    """Counts of the gold file's own answer oddities: answers without a ROUGE sentence, outputs
    without answer or provenance."""
    outputs = [output for item in gold for output in item["record"]["output"]]
    return {
        "rougel_empty_references": sum(1 for answers in scorer.answers for answer in answers
                                       if not rouge_sentences(answer)),
        "gold_outputs_without_answer": sum(1 for o in outputs
                                           if not (isinstance(o.get("answer"), str) and o["answer"].strip())),
        "gold_outputs_without_provenance": sum(1 for o in outputs if "provenance" not in o),
    }


def provenance_facts(columns: dict, scorer: LineScorer, rank_keys: tuple[str, ...]) -> dict:
    """Counts of provenance the scores skip or merge under ``rank_keys`` (gold and predicted)."""
    return {"gold_provenance_missing_rank_key": sum(e.missing_rank_key for e in scorer.evidence[rank_keys]),
            **{name: column_total(columns, (rank_keys, name))
               for name in ("predicted_provenance_missing_rank_key", "predicted_provenance_duplicates")}}


def item_facts(gold: Sequence[dict], columns: dict, scorer: LineScorer, rank_keys: tuple[str, ...],
               extra: int) -> dict:
    """:attr:`KiltItemScores.facts`, in the order ``score kilt`` prints them."""
    golden = gold_facts(gold, scorer)
    return {"empty_answers": column_total(columns, "empty_answers"),
            "non_string_answers": column_total(columns, "non_string_answers"),
            "rougel_empty_hypotheses": column_total(columns, "rougel_empty_hypotheses"),
            "rougel_empty_references": golden["rougel_empty_references"],
            "gold_outputs_without_answer": golden["gold_outputs_without_answer"],
            "gold_outputs_without_provenance": golden["gold_outputs_without_provenance"],
            "predictions_without_provenance": column_total(columns, "predictions_without_provenance"),
            **provenance_facts(columns, scorer, rank_keys), "predictions_not_in_gold": extra}


def warn_facts(facts: dict, predictions_path) -> None:
    """One warning per non-zero counted oddity of :data:`WARNED_FACTS`."""
    for name, what in WARNED_FACTS.items():
        if facts.get(name):
            warnings.warn(f"{predictions_path}: {facts[name]} {what} (counted as {name!r})", stacklevel=3)


def item_scores(gold: Sequence[dict], columns: dict, rank_keys: tuple[str, ...], facts: dict) -> KiltItemScores:
    """The :class:`KiltItemScores` of the scored columns (R-precision under ``rank_keys``)."""
    def column(name):
        return columns.get(name, np.zeros(len(gold), dtype=np.float64))
    return KiltItemScores(ids=[item["id"] for item in gold], gold_lines=[item["line"] for item in gold],
                          **{name: column(name) for name in KILT_METRICS}, rprec=column((rank_keys, "Rprec")),
                          facts=facts)


def observed(lines: Iterable[tuple[int, dict]], on_output) -> Iterator[tuple[int, dict]]:
    """The stream ``lines``, each ``(gold position, output)`` also handed to ``on_output`` first."""
    for position, output in lines:
        on_output(position, output)
        yield position, output


def score_kilt_items(gold_path, predictions_path, *, rank_keys: Sequence[str] = KILT_RANK_KEYS,
                     gold: Sequence[dict] | None = None, metrics: Sequence[str] = KILT_METRICS,
                     on_output=None) -> KiltItemScores:
    """Score ``predictions_path`` against the gold per item (see module doc), reading it as a
    stream. ``gold``: the items :func:`read_kilt_gold` returned for ``gold_path``, so that
    several prediction files are scored against one reading. ``metrics``: the downstream metrics
    the caller reads; ROUGE-L, the costly one, is computed only when named (else NaN). ``facts``
    counts the oddities of :data:`WARNED_FACTS` (warned when non-zero) plus
    ``predictions_not_in_gold``, ``predicted_provenance_duplicates`` and the gold outputs
    without answer or provenance. ``on_output(position, output)``: called with every scored
    output as it is read (what else a caller keeps of it, e.g. the texts an item explorer shows)."""
    gold = read_kilt_gold(gold_path) if gold is None else list(gold)
    rank_keys = tuple(rank_keys)
    scorer = LineScorer(gold, answers=True, with_rouge="rougel" in metrics, rankings={rank_keys: ()})
    lines = PairedPredictions(gold, gold_path, predictions_path)
    columns = scored_columns(lines if on_output is None else observed(lines, on_output), scorer, len(gold))
    items = item_scores(gold, columns, rank_keys, item_facts(gold, columns, scorer, rank_keys, lines.extra))
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


def eval_retrieval_means(columns: dict, scorer: LineScorer, ks: Sequence[int],
                         rank_keys: tuple[str, ...], size: int) -> "OrderedDict[str, float | None]":
    """``eval_retrieval.compute``: the mean of every official key over the items (summed in item
    order, as the official loop does; 0.0 for no items); ``entity_in_input`` is None where a
    gold item has no ``input``."""
    result: OrderedDict = OrderedDict()
    for key in retrieval_keys(ks):
        if key == "entity_in_input":
            values = [context.entity_in_input for context in scorer.contexts]
            result[key] = None if None in values else official_mean(np.array(values, dtype=np.float64))
        else:
            column = columns.get(key, columns.get((rank_keys, key)))
            result[key] = official_mean(np.zeros(size) if column is None else column)
    return result


def retrieval_counts(gold: Sequence[dict], columns: dict, scorer: LineScorer, rank_keys: tuple[str, ...]) -> dict:
    """``counts.eval_retrieval``: the provenance counts under its rank keys and the gold items without input."""
    return {**provenance_facts(columns, scorer, rank_keys),
            "gold_items_without_input": sum(1 for item in gold if "input" not in item["record"])}


def score_kilt_files(gold_path, predictions_path, *, ks: Sequence[int] | None = None,
                     rank_keys: Sequence[str] | None = None, retrieval_only: bool = False) -> dict:
    """The ``score kilt`` JSON: ``kilt``, ``downstream``, ``retrieval`` (``Rprec``,
    ``recall@5``) as ``eval_downstream.evaluate`` returns them; with ``ks`` or ``rank_keys``
    also ``eval_retrieval`` (what ``eval_retrieval.evaluate`` returns: default ks 1,5,10,20,
    rank key ``wikipedia_id``) and ``settings``; and ``counts`` (``items`` and the facts of
    :func:`score_kilt_items`; under ``eval_retrieval`` the provenance counts of its rank keys
    and the gold items without input). ``retrieval_only``: ``eval_retrieval.evaluate`` alone,
    on files without answers (``eval_retrieval``, ``settings``, ``counts``). The prediction
    file is read once, as a stream."""
    gold = read_kilt_gold(gold_path, require_answer=not retrieval_only)
    with_retrieval = retrieval_only or ks is not None or rank_keys is not None
    ks = tuple(sorted(RETRIEVAL_KS if ks is None else ks))
    rank_keys = tuple(KILT_RANK_KEYS if rank_keys is None else rank_keys)
    rankings = {} if retrieval_only else {KILT_RANK_KEYS: DOWNSTREAM_KS[-1:]}
    if with_retrieval:
        rankings[rank_keys] = tuple(sorted(set(rankings.get(rank_keys, ())) | set(ks)))
    scorer = LineScorer(gold, answers=not retrieval_only, rankings=rankings, context_ks=ks if with_retrieval else ())
    lines = PairedPredictions(gold, gold_path, predictions_path, retrieval_only=retrieval_only)
    columns = scored_columns(lines, scorer, len(gold))
    result: dict = {}
    counts: dict = {"items": len(gold)}
    if retrieval_only:
        counts["predictions_not_in_gold"] = lines.extra
    else:
        items = item_scores(gold, columns, KILT_RANK_KEYS, item_facts(gold, columns, scorer, KILT_RANK_KEYS,
                                                                      lines.extra))
        warn_facts(items.facts, predictions_path)
        result.update(downstream_scores(items))
        result["retrieval"] = {"Rprec": official_mean(items.rprec),
                               "recall@5": official_mean(columns.get((KILT_RANK_KEYS, "recall@5"),
                                                                     np.zeros(len(gold))))}
        counts.update(items.facts)
    if with_retrieval:
        result["eval_retrieval"] = eval_retrieval_means(columns, scorer, ks, rank_keys, len(gold))
        result["settings"] = {"ks": list(ks), "rank_keys": list(rank_keys)}
        counts["eval_retrieval"] = retrieval_counts(gold, columns, scorer, rank_keys)
        warn_facts({name: count for name, count in counts["eval_retrieval"].items()
                    if retrieval_only or rank_keys != KILT_RANK_KEYS or name not in counts},
                   f"{predictions_path} (eval_retrieval, rank keys {','.join(rank_keys)})")
    result["counts"] = counts
    return result
