"""KILT retrieval metrics per item, as facebookresearch/KILT ``kilt/eval_retrieval.py`` computes them.

In:  one gold KILT record (``output``: a list of outputs, each maybe with ``provenance``, a
     list of entries such as ``{"wikipedia_id": ..., "title": ..., "text": ...}``), the one
     predicted output's ``provenance`` list, the rank keys and the cut-offs ``ks``.
Out: R-precision and the ``@k`` values of one item (:func:`item_retrieval_metrics`), and the
     file-level means under the official names in the official key order
     (:func:`retrieval_means`).

Rules (the official code's, quirks included):
* an entry's id is ``"+".join(str(entry[key]).strip() for key in rank_keys)``; a *predicted*
  or *gold* entry missing a rank key is skipped for R-precision (counted by the callers), a
  predicted id repeated is kept once (first position);
* R-precision: per gold output, ``R`` = its distinct complete ids, hits among the first ``R``
  predicted ids over ``R`` (0 for an output without provenance); the item's value is the
  maximum over gold outputs;
* evidence sets (for ``@k``): one per gold output that has a ``provenance`` key, built from
  the rank keys the entry *has* (a gold entry missing a key joins the keys it has), repeated
  sets counted once. The rank walks the distinct predicted ids: a predicted id inside a set
  removes it from that set and replaces the set's earlier point in the rank by a point at
  this position (``True`` once the set is complete); an id in several sets adds a point for
  each; an id in none adds ``False``;
* ``precision@k`` = completed sets in the first k points / k, ``recall@k`` = / distinct sets,
  ``success_rate@k`` = 1 if any completed set in the first k points (0 for all three when
  the gold has no evidence set or nothing was predicted);
* ``answer_in_context@k``, ``answer_and_ent_in_context@k``, ``entity_in_context@k`` read the
  ``text`` of the first k raw predicted entries (duplicates and entries missing a rank key
  included) with KILT's answer normalisation and substring tests; ``entity_in_input``
  looks for a gold title in the gold ``input``;
* the file means report ``precision@k`` and the context metrics for every k > 0 but
  ``recall@k`` and ``success_rate@k`` only for k > 1.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Iterable, Sequence

from .kilt_answers import gold_answers, gold_titles, normalize_answer


def entry_id(entry: dict, rank_keys: Sequence[str]) -> str:
    """The id of a provenance entry that has every rank key."""
    return "+".join(str(entry[key]).strip() for key in rank_keys)


def has_rank_keys(entry: dict, rank_keys: Sequence[str]) -> bool:
    return all(key in entry for key in rank_keys)


def distinct_ids(provenance: Iterable[dict], rank_keys: Sequence[str]) -> list[str]:
    """The ids of the entries with every rank key, each once, in first-seen order."""
    return list(dict.fromkeys(entry_id(entry, rank_keys) for entry in provenance if has_rank_keys(entry, rank_keys)))


def gold_id_lists(outputs: Sequence[dict], rank_keys: Sequence[str]) -> list[list[str]]:
    """Per gold output, its :func:`distinct_ids` (``[]`` for an output without provenance)."""
    return [distinct_ids(output.get("provenance", ()), rank_keys) for output in outputs]


def r_precision_against(predicted_ids: Sequence[str], gold_ids: Sequence[str]) -> float:
    """Hits among the first ``len(gold_ids)`` predicted ids over ``len(gold_ids)`` (0 if empty)."""
    size = len(gold_ids)
    if size == 0:
        return 0
    return sum(1 for key in predicted_ids[:size] if key in gold_ids) / size


def r_precision(predicted_ids: Sequence[str], gold_outputs: Sequence[dict], rank_keys: Sequence[str]) -> float:
    """The item's R-precision: the best over its gold outputs."""
    return max(r_precision_against(predicted_ids, ids) for ids in gold_id_lists(gold_outputs, rank_keys))


def evidence_sets(gold_outputs: Sequence[dict], rank_keys: Sequence[str]) -> list[frozenset]:
    """The distinct evidence sets of the gold outputs that have provenance (see module doc)."""
    sets: list[frozenset] = []
    for output in gold_outputs:
        if "provenance" in output:
            e_set = frozenset("+".join(str(entry[key]).strip() for key in rank_keys if key in entry)
                              for entry in output["provenance"])
            if e_set not in sets:
                sets.append(e_set)
    return sets


def evidence_rank(predicted_ids: Sequence[str], sets: Sequence[frozenset]) -> list:
    """The official rank: ``True`` (a set completed), ``False`` (no set) or the index of a set
    still partial, one point per (predicted id, set containing it)."""
    remaining = [set(e_set) for e_set in sets]
    rank: list = []
    for key in predicted_ids:
        found = False
        for index, e_set in enumerate(remaining):
            if key in e_set:
                found = True
                point = ("set", index)
                if point in rank:
                    rank.remove(point)
                e_set.remove(key)
                rank.append(True if not e_set else point)
        if not found:
            rank.append(False)
    return rank


def context_hit(provenance: Sequence[dict], k: int, wanted: Sequence[str], also: Sequence[str] = ()) -> int:
    """1 if one of the first ``k`` predicted entries' normalised ``text`` contains a normalised
    string of ``wanted`` (and, when ``also`` is given, one of ``also`` too)."""
    wanted_n = [normalize_answer(text) for text in wanted]
    also_n = [normalize_answer(text) for text in also]
    for entry in provenance[:k]:
        if isinstance(entry.get("text"), str):
            text = normalize_answer(entry["text"])
            if any(w in text for w in wanted_n) and (not also or any(a in text for a in also_n)):
                return 1
    return 0


def entity_in_input(gold_record: dict) -> int | None:
    """1 if a gold provenance title (normalised) occurs in the gold ``input`` (normalised);
    None for a record without ``input`` (the official code raises ``KeyError`` there)."""
    if "input" not in gold_record:
        return None
    text = normalize_answer(gold_record["input"])
    return int(any(normalize_answer(title) in text for title in gold_titles(gold_record["output"])))


def rank_metrics(predicted_ids: Sequence[str], gold_outputs: Sequence[dict], ks: Sequence[int],
                 rank_keys: Sequence[str]) -> dict:
    """``precision@k``, ``recall@k``, ``success_rate@k`` of one item for every k in ``ks``."""
    sets = evidence_sets(gold_outputs, rank_keys) if predicted_ids else []
    rank = evidence_rank(predicted_ids, sets)
    result = {}
    for k in ks:
        completed = rank[:k].count(True)
        result[f"precision@{k}"] = completed / k if sets else 0
        result[f"recall@{k}"] = completed / len(sets) if sets else 0
        result[f"success_rate@{k}"] = int(True in rank[:k]) if sets else 0
    return result


def item_retrieval_metrics(provenance: Sequence[dict], gold_record: dict, ks: Sequence[int],
                           rank_keys: Sequence[str]) -> dict:
    """All of ``eval_retrieval.get_ranking_metrics`` for one item (every key for every k > 0)."""
    outputs = gold_record["output"]
    predicted = distinct_ids(provenance, rank_keys)
    result = {"Rprec": r_precision(predicted, outputs, rank_keys),
              "entity_in_input": entity_in_input(gold_record),
              **rank_metrics(predicted, outputs, ks, rank_keys)}
    answers = gold_answers(outputs)
    titles = gold_titles(outputs)
    for k in ks:
        result[f"answer_in_context@{k}"] = context_hit(provenance, k, answers)
        result[f"answer_and_ent_in_context@{k}"] = context_hit(provenance, k, answers, titles) if titles else 0
        result[f"entity_in_context@{k}"] = context_hit(provenance, k, titles)
    return result


def retrieval_keys(ks: Sequence[int]) -> list[str]:
    """The official result keys, in ``eval_retrieval.compute``'s order, for the sorted ``ks``."""
    keys = ["Rprec", "entity_in_input"]
    for k in sorted(ks):
        keys += [f"precision@{k}", f"answer_in_context@{k}", f"answer_and_ent_in_context@{k}",
                 f"entity_in_context@{k}"]
        if k > 1:
            keys += [f"recall@{k}", f"success_rate@{k}"]
    return keys


def retrieval_means(items: Sequence[dict], ks: Sequence[int]) -> "OrderedDict[str, float]":
    """``eval_retrieval.compute``: the mean of every official key over the items (summed in
    item order, as the official loop does; 0.0 for no items; None where an item's value is
    None, i.e. ``entity_in_input`` when a gold item has no ``input``)."""
    result: OrderedDict = OrderedDict()
    for key in retrieval_keys(ks):
        total = 0.0
        for item in items:
            if item[key] is None:
                total = None
                break
            total += item[key]
        result[key] = None if total is None else (total / len(items) if items else 0.0)
    return result
