"""The @k metrics of one item placed from the gold ids' positions in a ranked list read once
(``completed_places``), against the official rank built step by step as KILT's
``eval_retrieval.get_rank`` builds it, on random and 1,000-page rankings; and the in-context
values read from the first entry that passes each test."""
import random

import pytest

from evidence_ledger.scoring.kilt_retrieval import (context_values, gold_context, gold_evidence, predicted_ranking,
                                                    rank_values)

KEYS = ("wikipedia_id",)


def official_rank(predicted: list[str], sets: list[set[str]]) -> list:
    """The rank walk of the official code: per distinct predicted id, for each set holding it,
    the set's earlier point is removed and a point appended (True once the set is complete);
    an id in no set appends False."""
    remaining = [set(e_set) for e_set in sets]
    rank: list = []
    for key in dict.fromkeys(predicted):
        found = False
        for index, e_set in enumerate(remaining):
            if key in e_set:
                found = True
                if ("set", index) in rank:
                    rank.remove(("set", index))
                e_set.remove(key)
                rank.append(True if not e_set else ("set", index))
        if not found:
            rank.append(False)
    return rank


def official_values(predicted: list[str], sets: list[set[str]], ks) -> dict:
    """precision@k, recall@k, success_rate@k from the official rank (0 without sets or predictions)."""
    distinct_sets = list(dict.fromkeys(frozenset(s) for s in sets))
    rank = official_rank(predicted, distinct_sets) if predicted else []
    values = {}
    for k in ks:
        completed = rank[:k].count(True) if predicted else 0
        values[f"precision@{k}"] = completed / k if predicted and distinct_sets else 0
        values[f"recall@{k}"] = completed / len(distinct_sets) if predicted and distinct_sets else 0
        values[f"success_rate@{k}"] = int(True in rank[:k]) if predicted and distinct_sets else 0
    return values


def ours(predicted: list[str], sets: list[set[str]], ks) -> dict:
    outputs = [{"answer": "x", "provenance": [{"wikipedia_id": page} for page in sorted(e_set)]} for e_set in sets]
    evidence = gold_evidence(outputs, KEYS)
    ranking = predicted_ranking([{"wikipedia_id": page} for page in predicted], KEYS, evidence.wanted)
    values = rank_values(ranking, evidence, ks)
    del values["Rprec"]
    return values


@pytest.mark.parametrize("seed", range(300))
def test_at_k_values_equal_the_official_rank_walk_on_random_rankings(seed):
    """Overlapping, repeated and empty evidence sets, repeated predicted pages, every k."""
    rng = random.Random(seed)
    pool = [str(n) for n in range(rng.randint(2, 12))]
    sets = [set(rng.sample(pool, rng.randint(0, min(4, len(pool))))) for _ in range(rng.randint(1, 4))]
    predicted = [rng.choice(pool) for _ in range(rng.randint(0, 15))]
    ks = list(range(1, len(predicted) + 3))
    assert ours(predicted, sets, ks) == official_values(predicted, sets, ks)


@pytest.mark.parametrize("seed", range(20))
def test_at_k_values_equal_the_official_rank_walk_on_1000_page_rankings(seed):
    rng = random.Random(seed)
    predicted = [str(n) for n in rng.sample(range(100_000), 1000)]
    sets = [set(rng.sample(predicted[:300], rng.randint(1, 3))) for _ in range(rng.randint(1, 3))]
    sets.append({"not ranked"} | set(rng.sample(predicted, 1)))
    predicted[rng.randrange(1000)] = predicted[0]  # a repeated page
    ks = [1, 5, 10, 20, 100, 500, 999, 1000]
    assert ours(predicted, sets, ks) == official_values(predicted, sets, ks)


def test_a_set_stands_at_its_last_page_and_its_partial_point_leaves_the_rank():
    """Sets {A} and {B, C}; A ranked first, B 100th, C 500th of 1,000: {A} completes at place 1;
    B's partial point is removed when C completes the set, so {B, C} stands at place 499."""
    predicted = ["A"] + [f"f{n}" for n in range(1, 1000)]
    predicted[99], predicted[499] = "B", "C"
    values = ours(predicted, [{"A"}, {"B", "C"}], [1, 100, 498, 499, 1000])
    assert (values["precision@1"], values["precision@100"], values["recall@100"]) == (1.0, 1 / 100, 1 / 2)
    assert (values["recall@498"], values["recall@499"], values["precision@1000"]) == (1 / 2, 1.0, 2 / 1000)


def test_in_context_values_come_from_the_first_entry_that_passes_each_test():
    gold = {"input": "q", "output": [{"answer": "Paris", "provenance": [{"wikipedia_id": 1, "title": "France"}]}]}
    provenance = [{"wikipedia_id": n} for n in range(1000)]
    provenance[20]["text"] = "France, a country"
    provenance[700]["text"] = "The capital of France is Paris."
    provenance[800]["text"] = None
    values = context_values(provenance, gold_context(gold), [1, 100, 1000])
    assert [values[f"answer_in_context@{k}"] for k in (1, 100, 1000)] == [0, 0, 1]
    assert [values[f"answer_and_ent_in_context@{k}"] for k in (1, 100, 1000)] == [0, 0, 1]
    assert [values[f"entity_in_context@{k}"] for k in (1, 100, 1000)] == [0, 1, 1]
