"""Answer accuracy and macro-F1 with bootstrap intervals (accounting.accuracy)."""
import numpy as np
import pandas as pd
import pytest

from evidence_ledger.accounting.accuracy import study1_metric_rows, study2_accuracy_rows
from evidence_ledger.resampling.bootstrap import bootstrap_draws
from evidence_ledger.accounting.estimates import macro_f1


def s2_answer(claim, rep, pred, gold="SUPPORTS"):
    return {"dataset": "fever", "system": "m", "format": "codes", "replicate": rep, "parser": "strict",
            "answer_source": "bm25", "answer_budget": "short", "claim_id": claim, "doc_id": "", "gold_label": gold,
            "predicted_label": pred, "label_correct": pred == gold, "submitted": True}


def test_study2_accuracy_counts_invalid_wrong_and_averages_seeds():
    """Claims a, b, c (gold SUPPORTS; families {a, b}, {c}).
    seed 1: S, S, R -> 2/3 = 66.67; seed 2: INVALID, R, S -> 1/3 = 33.33; mean 50.
    greedy (replicate 0): S, S, S -> 100 (no interval)."""
    preds = {0: ["SUPPORTS"] * 3, 1: ["SUPPORTS", "SUPPORTS", "REFUTES"], 2: ["INVALID", "REFUTES", "SUPPORTS"]}
    answers = pd.DataFrame([s2_answer(c, r, p) for r, ps in preds.items() for c, p in zip("abc", ps)])
    families = pd.DataFrame({"dataset": "fever", "claim_id": list("abc"), "family_id": ["f1", "f1", "f2"]})
    rows = study2_accuracy_rows(answers, families, dataset="fever", system="m", parser="strict", formats=["codes"],
                                sources=["bm25"], budgets=["short"], seeds=[1, 2], greedy=0, draws=200, seed=5,
                                batch_size=64, tail=0.025)
    mean = next(r for r in rows if r["replicate"] == -1)
    greedy = next(r for r in rows if r["replicate"] == 0)
    assert mean["estimate"] == pytest.approx(50.0) and mean["n_clusters"] == 2
    assert 0 <= mean["lower"] <= mean["upper"] <= 100
    assert greedy["estimate"] == pytest.approx(100.0) and np.isnan(greedy["lower"])


GOLD = ["SUPPORTS", "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
PRED = {(0, 1): ["SUPPORTS", "REFUTES", "REFUTES", "SUPPORTS"], (0, 2): ["SUPPORTS", "SUPPORTS", "REFUTES", "REFUTES"],
        (1, 1): ["SUPPORTS", "SUPPORTS", "REFUTES", "REFUTES"], (1, 2): ["SUPPORTS", "SUPPORTS", "SUPPORTS", "REFUTES"]}


def s1_answers():
    rows = []
    for (a, ck), preds in PRED.items():
        for i, (g, p) in enumerate(zip(GOLD, preds)):
            rows.append({"dataset": "feverous", "system": "verifier", "format": "verifier", "replicate": ck,
                         "parser": "none", "answer_source": ["s0", "s1"][a], "answer_budget": "full",
                         "claim_id": str(i + 1), "doc_id": "", "gold_label": g, "predicted_label": p,
                         "label_correct": g == p, "submitted": True})
    return pd.DataFrame(rows)


def test_study1_accuracy_and_macro_f1_by_hand():
    """Gold S, S, R, N; classes S, R, N (NEI in the gold set, never predicted -> F1 0).
    accuracy_0: ckpt 1 S R R S = 2/4, ckpt 2 S S R R = 3/4 -> 62.5; accuracy_1: 3/4, 2/4 -> 62.5.
    macro_f1_0 ckpt 1: S tp1 fp1 fn1 -> 1/2, R tp1 fp1 -> 2/3, N 0 -> 38.89; ckpt 2: S 1,
    R 2/3, N 0 -> 55.56; mean 47.22. macro_f1_1 ckpt 1 = 55.56; ckpt 2 S S S R: S tp2 fp1 -> 4/5,
    R tp0 -> 0, N 0 -> 26.67; mean 41.11. Differences: accuracy 0, macro-F1 -6.11."""
    rows = study1_metric_rows(s1_answers(), ["1", "2", "3", "4"], dataset="feverous", system="verifier",
                              parser="none", sources=["s0", "s1"], replicates=[1, 2],
                              classes=["NOT ENOUGH INFO", "REFUTES", "SUPPORTS"], draws=100, seed=20261099,
                              batch_size=32, tail=0.025)
    est = {r["quantity"]: r["estimate"] for r in rows}
    assert est["accuracy_0"] == pytest.approx(62.5) and est["accuracy_1"] == pytest.approx(62.5)
    assert est["macro_f1_0"] == pytest.approx((100 * (0.5 + 2 / 3) / 3 + 100 * (1 + 2 / 3) / 3) / 2)
    assert est["macro_f1_0"] == pytest.approx(47.2222, abs=1e-4)
    assert est["macro_f1_1"] == pytest.approx(41.1111, abs=1e-4)
    assert est["macro_f1_diff"] == pytest.approx(-6.1111, abs=1e-4) and est["accuracy_diff"] == pytest.approx(0)
    # the statistic agrees with the per-replicate macro_f1 of the point estimates
    gold = np.array(GOLD, dtype=object)
    assert est["macro_f1_1"] == pytest.approx(np.mean([macro_f1(gold, np.array(PRED[(1, k)], dtype=object),
                                                                ["NOT ENOUGH INFO", "REFUTES", "SUPPORTS"])
                                                       for k in (1, 2)]))
    assert all(r["lower"] <= r["upper"] for r in rows)


def test_study1_metric_draws_are_the_study1_claim_draws():
    """Same seed, same claim count, claims resampled and checkpoints not: the resampled claim
    multiplicities are those of any other Study 1 bootstrap, so a per-claim indicator column
    (here claim 1 only) resamples to exactly the same draws."""
    counts = np.zeros((4, 2, 1), dtype=np.int64)
    counts[0] = 1
    a = bootstrap_draws(counts, lambda t: t[:, 0, :], draws=50, seed=20261099, batch_size=16, resample_seeds=False)
    b = bootstrap_draws(np.concatenate([counts, counts * 0 + 1], axis=2), lambda t: t[:, 0, :1], draws=50,
                        seed=20261099, batch_size=16, resample_seeds=False)
    assert np.array_equal(a, b)


def test_study2_seed_mean_n_answers_is_the_cells_count_per_seed():
    """Two budgets (cells) x three claims x two seeds: each seed-mean row counts its own cell's
    3 answers, not the first seed's 6 answers over both cells."""
    rows_in = []
    for rep in (0, 1, 2):
        for budget in ("short", "long"):
            for c in "abc":
                rows_in.append({**s2_answer(c, rep, "SUPPORTS"), "answer_budget": budget})
    answers = pd.DataFrame(rows_in)
    families = pd.DataFrame({"dataset": "fever", "claim_id": list("abc"), "family_id": ["f1", "f1", "f2"]})
    rows = study2_accuracy_rows(answers, families, dataset="fever", system="m", parser="strict", formats=["codes"],
                                sources=["bm25"], budgets=["short", "long"], seeds=[1, 2], greedy=0, draws=20,
                                seed=5, batch_size=8, tail=0.025)
    assert sorted(r["n_answers"] for r in rows) == [3, 3, 3, 3]


def test_study2_seeds_with_different_cell_counts_are_refused():
    answers = pd.DataFrame([s2_answer(c, r, "SUPPORTS") for r in (1, 2) for c in ("abc" if r == 1 else "ab")])
    families = pd.DataFrame({"dataset": "fever", "claim_id": list("abc"), "family_id": ["f1", "f1", "f2"]})
    with pytest.raises(ValueError, match="different answer counts"):
        study2_accuracy_rows(answers, families, dataset="fever", system="m", parser="strict", formats=["codes"],
                             sources=["bm25"], budgets=["short"], seeds=[1, 2], greedy=None, draws=20,
                             seed=5, batch_size=8, tail=0.025)
