"""KILT retrieval metrics per item, as facebookresearch/KILT ``kilt/eval_retrieval.py`` computes them,
reading a predicted provenance list once.

In:  per gold record its evidence under the rank keys (:func:`gold_evidence`: built once per
     gold file), and one predicted output's ``provenance`` list (a list of entries such as
     ``{"wikipedia_id": ..., "title": ..., "text": ...}``), the cut-offs ``ks``.
Out: the predicted ranking (:func:`predicted_ranking`: the distinct ids and where the gold ids
     stand in them), R-precision and the ``@k`` values of one item (:func:`rank_values`), the
     in-context values (:func:`context_values`), and the official result keys in the official
     order (:func:`retrieval_keys`).

Rules (the official code's, quirks included):
* an entry's id is ``"+".join(str(entry[key]).strip() for key in rank_keys)``; a *predicted*
  or *gold* entry missing a rank key is skipped for R-precision (counted by the callers), a
  predicted id repeated is kept once (first position);
* R-precision: per gold output, ``R`` = its distinct complete ids, hits among the first ``R``
  predicted ids over ``R`` (0 for an output without provenance); the item's value is the
  maximum over gold outputs;
* evidence sets (for ``@k``): one per gold output that has a ``provenance`` key, built from
  the rank keys the entry *has* (a gold entry missing a key joins the keys it has), repeated
  sets counted once. The official rank walks the distinct predicted ids: a predicted id inside
  a set removes it from that set and replaces the set's earlier point in the rank by a point at
  this position (``True`` once the set is complete); an id in several sets adds a point for
  each; an id in none adds ``False``. So the final rank holds one ``False`` per predicted id in
  no set and one point per set that was hit, at its last hit (ties in set order), and a
  completed set's place in it follows from the positions of the gold ids alone
  (:func:`completed_places`), without building the rank;
* ``precision@k`` = completed sets in the first k points / k, ``recall@k`` = / distinct sets,
  ``success_rate@k`` = 1 if any completed set in the first k points (0 for all three when
  the gold has no evidence set or nothing was predicted);
* ``answer_in_context@k``, ``answer_and_ent_in_context@k``, ``entity_in_context@k`` read the
  ``text`` of the first k raw predicted entries (duplicates and entries missing a rank key
  included) with KILT's answer normalisation and substring tests: 1 when the first entry that
  passes the test is among them (:func:`first_context_hits`); ``entity_in_input`` looks for a
  gold title in the gold ``input``;
* the file means report ``precision@k`` and the context metrics for every k > 0 but
  ``recall@k`` and ``success_rate@k`` only for k > 1.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from itertools import islice, repeat
from operator import itemgetter
from typing import Sequence

from .kilt_answers import gold_answers, gold_titles, normalize_answer


def entry_id(entry: dict, rank_keys: Sequence[str]) -> str:
    """The id of a provenance entry that has every rank key."""
    return "+".join(str(entry[key]).strip() for key in rank_keys)


def has_rank_keys(entry: dict, rank_keys: Sequence[str]) -> bool:
    return all(key in entry for key in rank_keys)


def key_strings(provenance: Sequence[dict], key: str) -> list[str]:
    """``str(entry[key]).strip()`` of every entry (``KeyError`` when one lacks ``key``), with
    C-level maps (``str`` only where a value is not already a string)."""
    values = list(map(itemgetter(key), provenance))
    try:
        return list(map(str.strip, values))
    except TypeError:
        return list(map(str.strip, map(str, values)))


def complete_entry_ids(provenance: Sequence[dict], rank_keys: Sequence[str]) -> tuple[list[str], int]:
    """``(ids, skipped)``: the id of every entry that has every rank key, in order, repeats
    kept, and the number of entries missing a rank key (one pass per rank key when none is)."""
    try:
        columns = [key_strings(provenance, key) for key in rank_keys]
    except KeyError:
        complete = [entry for entry in provenance if has_rank_keys(entry, rank_keys)]
        return [entry_id(entry, rank_keys) for entry in complete], len(provenance) - len(complete)
    return (columns[0] if len(columns) == 1 else list(map("+".join, zip(*columns)))), 0


def distinct_ids(provenance: Sequence[dict], rank_keys: Sequence[str]) -> list[str]:
    """The ids of the entries with every rank key, each once, in first-seen order."""
    return list(dict.fromkeys(complete_entry_ids(provenance, rank_keys)[0]))


@dataclass(frozen=True)
class GoldEvidence:
    """One gold record's evidence under some rank keys."""

    id_lists: tuple[tuple[str, ...], ...]  # per gold output its distinct complete ids (R-precision)
    sets: tuple[frozenset, ...]            # the distinct evidence sets (@k), see the module doc
    wanted: frozenset                      # every id of ``id_lists`` and ``sets``
    missing_rank_key: int                  # gold provenance entries without every rank key


def evidence_sets(gold_outputs: Sequence[dict], rank_keys: Sequence[str]) -> tuple[frozenset, ...]:
    """The distinct evidence sets of the gold outputs that have provenance (see module doc)."""
    sets: list[frozenset] = []
    for output in gold_outputs:
        if "provenance" in output:
            e_set = frozenset("+".join(str(entry[key]).strip() for key in rank_keys if key in entry)
                              for entry in output["provenance"])
            if e_set not in sets:
                sets.append(e_set)
    return tuple(sets)


def gold_evidence(gold_outputs: Sequence[dict], rank_keys: Sequence[str]) -> GoldEvidence:
    """The :class:`GoldEvidence` of one gold record's outputs."""
    id_lists = tuple(tuple(distinct_ids(output.get("provenance", ()), rank_keys)) for output in gold_outputs)
    sets = evidence_sets(gold_outputs, rank_keys)
    missing = sum(complete_entry_ids(output.get("provenance", ()), rank_keys)[1] for output in gold_outputs)
    return GoldEvidence(id_lists, sets, frozenset().union(*id_lists, *sets), missing)


@dataclass(frozen=True)
class PredictedRanking:
    """One predicted provenance list under some rank keys, reduced to what the scores read."""

    size: int           # distinct complete ids
    positions: dict     # 0-based position among them of each complete id the gold names
    skipped: int        # entries missing a rank key
    duplicates: int     # complete entries repeating an earlier id


def predicted_ranking(provenance: Sequence[dict], rank_keys: Sequence[str], wanted: frozenset) -> PredictedRanking:
    """The :class:`PredictedRanking` of ``provenance``; ``wanted``: the gold ids to place."""
    ids, skipped = complete_entry_ids(provenance, rank_keys)
    first = dict.fromkeys(ids)
    found = [key for key in wanted if key in first]
    order = list(first) if found else []
    return PredictedRanking(len(first), {key: order.index(key) for key in found}, skipped, len(ids) - len(first))


def r_precision_against(positions: dict, gold_ids: Sequence[str]) -> float:
    """Hits among the first ``len(gold_ids)`` predicted ids over ``len(gold_ids)`` (0 if empty)."""
    size = len(gold_ids)
    if size == 0:
        return 0
    return sum(1 for key in gold_ids if positions.get(key, size) < size) / size


def r_precision(ranking: PredictedRanking, evidence: GoldEvidence) -> float:
    """The item's R-precision: the best over its gold outputs."""
    return max(r_precision_against(ranking.positions, ids) for ids in evidence.id_lists)


def completed_places(positions: dict, sets: Sequence[frozenset]) -> list[int]:
    """The 0-based places in the official final rank of the evidence sets the ranking
    completes: a set's point stands at its last hit (after the points of the sets hit earlier,
    or at the same id with a lower index), behind one ``False`` per earlier predicted id in no set."""
    points = []
    for index, e_set in enumerate(sets):
        hits = [positions[key] for key in e_set if key in positions]
        if hits:
            points.append((max(hits), index, len(hits) == len(e_set)))
    points.sort()
    in_sets = sorted({positions[key] for e_set in sets for key in e_set if key in positions})
    return [last - bisect_left(in_sets, last) + before for before, (last, _, complete) in enumerate(points)
            if complete]


def rank_values(ranking: PredictedRanking, evidence: GoldEvidence, ks: Sequence[int]) -> dict:
    """``Rprec`` and ``precision@k``, ``recall@k``, ``success_rate@k`` of one item for every k in ``ks``."""
    values = {"Rprec": r_precision(ranking, evidence)}
    sets = evidence.sets if ranking.size else ()
    places = completed_places(ranking.positions, sets)
    for k in ks:
        completed = sum(1 for place in places if place < k)
        values[f"precision@{k}"] = completed / k if sets else 0
        values[f"recall@{k}"] = completed / len(sets) if sets else 0
        values[f"success_rate@{k}"] = int(completed > 0) if sets else 0
    return values


@dataclass(frozen=True)
class GoldContext:
    """One gold record's normalised answers and titles (the in-context tests) and ``entity_in_input``."""

    answers: tuple[str, ...]
    titles: tuple[str, ...]
    entity_in_input: int | None


def entity_in_input(gold_record: dict) -> int | None:
    """1 if a gold provenance title (normalised) occurs in the gold ``input`` (normalised);
    None for a record without ``input`` (the official code raises ``KeyError`` there)."""
    if "input" not in gold_record:
        return None
    text = normalize_answer(gold_record["input"])
    return int(any(normalize_answer(title) in text for title in gold_titles(gold_record["output"])))


def gold_context(gold_record: dict) -> GoldContext:
    outputs = gold_record["output"]
    return GoldContext(tuple(normalize_answer(a) for a in gold_answers(outputs)),
                       tuple(normalize_answer(t) for t in gold_titles(outputs)), entity_in_input(gold_record))


def first_context_hits(provenance: Sequence[dict], context: GoldContext, limit: int) -> tuple[int, int, int]:
    """0-based positions, among the first ``limit`` predicted entries, of the first whose
    normalised ``text`` contains a normalised gold answer; an answer and a title; a title
    (``limit`` where none does). Entries without a string ``text`` are passed over."""
    hits = [limit, limit, limit]
    texts = list(map(dict.get, islice(provenance, limit), repeat("text")))
    if str not in set(map(type, texts)):
        return limit, limit, limit
    for index, text in enumerate(texts):
        if text.__class__ is not str:
            continue
        text = normalize_answer(text)
        answer = any(a in text for a in context.answers)
        title = any(t in text for t in context.titles)
        for slot, hit in enumerate((answer, answer and title, title)):
            if hit and hits[slot] == limit:
                hits[slot] = index
        if limit not in hits:
            break
    return hits[0], hits[1], hits[2]


CONTEXT_NAMES = ("answer_in_context", "answer_and_ent_in_context", "entity_in_context")


def context_values(provenance: Sequence[dict], context: GoldContext, ks: Sequence[int]) -> dict:
    """``answer_in_context@k``, ``answer_and_ent_in_context@k``, ``entity_in_context@k`` for every k."""
    firsts = first_context_hits(provenance, context, max(ks))
    return {f"{name}@{k}": int(first < k) for k in ks for name, first in zip(CONTEXT_NAMES, firsts)}


def retrieval_keys(ks: Sequence[int]) -> list[str]:
    """The official result keys, in ``eval_retrieval.compute``'s order, for the sorted ``ks``."""
    keys = ["Rprec", "entity_in_input"]
    for k in sorted(ks):
        keys += [f"precision@{k}", f"answer_in_context@{k}", f"answer_and_ent_in_context@{k}",
                 f"entity_in_context@{k}"]
        if k > 1:
            keys += [f"recall@{k}", f"success_rate@{k}"]
    return keys
