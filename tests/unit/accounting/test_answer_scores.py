"""A continuous answer metric (KILT's F1 / ROUGE-L) carried through the accounting as it is: the
cells are the mean of ``score_a * [rprec_b = 1]``, the identities hold, Eq. 4 still sums to E_a,
and the integer benchmarks keep their integer tables."""
from __future__ import annotations

import numpy as np
import pandas as pd

from evidence_ledger.accounting.answer_scores import (continuous_metric_counts, continuous_metric_names,
                                                      continuous_metric_statistic)
from evidence_ledger.prediction_files.formats.kilt import continuous_rates
from evidence_ledger.prediction_files.runs import Runs
from evidence_ledger.prediction_files.tables import DrawSettings, account_runs
from evidence_ledger.prediction_files.write import counts_schema, terminal_table
from evidence_ledger.resampling.bootstrap import gemm_dtype
from evidence_ledger.tables.accounting import CLUSTER_COUNTS, CLUSTER_SCORES

SETTINGS = DrawSettings(draws=200, seed=11, alpha=0.05, family_size=1, batch_size=64)


def kilt_runs(n_items: int = 60, runs: int = 3, seed: int = 4, metric: str = "f1") -> Runs:
    """Continuous per-item scores (F1-like, with exact 0s and 1s) and R-precisions in {0, 1/3, 1/2, 1}."""
    rng = np.random.default_rng(seed)
    score = rng.random((n_items, runs, 2))
    score[rng.random(score.shape) < 0.2] = 0.0
    score[rng.random(score.shape) < 0.1] = 1.0
    rprec = rng.choice([0.0, 1 / 3, 0.5, 1.0], size=(n_items, runs, 2), p=[0.3, 0.1, 0.1, 0.5])
    rprec[:, :, 1] = np.where(rng.random((n_items, runs)) < 0.3, 1.0, rprec[:, :, 1])
    eligible = (rprec == 1.0).astype(np.int64)
    num = score[:, :, :, None] * eligible[:, :, None, :]
    units = [f"q{i:03d}" for i in range(n_items)]
    files = (tuple(f"a{r}" for r in range(runs)), tuple(f"b{r}" for r in range(runs)))
    return Runs("kilt", "kilt", "gold.jsonl", files, units, num, np.ones((n_items, runs, 2), dtype=np.int64),
                answer=score, eligible=eligible, evidence=rprec, answer_name=metric, evidence_name="rprec",
                facts={"skipped": 0})


def averaged(estimates: pd.DataFrame) -> pd.Series:
    rows = estimates[(estimates["replicate"] == -1) & (estimates["part"] == "")]
    return rows.set_index("quantity")["value"]


def test_each_cell_is_the_mean_of_run_a_answer_metric_where_run_b_provenance_has_rprec_one():
    runs = kilt_runs()
    accounted = account_runs(runs, system="rag", sources=("bm25", "dpr"), settings=SETTINGS)
    est = averaged(accounted.estimates)
    score, rprec = runs.answer, runs.evidence
    for a in (0, 1):
        for b in (0, 1):
            per_run = [100 * np.mean(score[:, r, a] * (rprec[:, r, b] == 1)) for r in range(runs.n_runs)]
            assert abs(est[f"T{a}{b}"] - np.mean(per_run)) < 1e-12
    per_run_rows = accounted.estimates[(accounted.estimates["quantity"] == "T01")
                                       & (accounted.estimates["replicate"] == 2)]
    assert abs(per_run_rows["value"].iat[0] - 100 * np.mean(score[:, 1, 0] * (rprec[:, 1, 1] == 1))) < 1e-12


def test_the_gain_splits_both_ways_to_1e_12_in_the_estimates_and_in_every_draw():
    runs = kilt_runs(seed=9)
    accounted = account_runs(runs, system="rag", sources=("bm25", "dpr"), settings=SETTINGS)
    est = averaged(accounted.estimates)
    assert abs(est["E0"] + est["A1"] - est["gain"]) < 1e-12
    assert abs(est["A0"] + est["E1"] - est["gain"]) < 1e-12
    assert abs(est["interaction"] - (est["E1"] - est["E0"])) < 1e-12
    iv = accounted.intervals.set_index("quantity")
    for q in ("gain", "E0", "A1", "A0", "E1", "interaction", "T00", "T11"):
        assert abs(iv.at[q, "estimate"] - est[q]) < 1e-12
        assert iv.at[q, "lower"] <= iv.at[q, "estimate"] <= iv.at[q, "upper"]
    assert abs(iv.at["E0", "boot_mean"] + iv.at["A1", "boot_mean"] - iv.at["gain", "boot_mean"]) < 1e-12


def test_the_answer_metric_rprec_and_rprec_one_share_are_named_for_the_metric_with_intervals():
    runs = kilt_runs(metric="rougel")
    accounted = account_runs(runs, system="rag", sources=("bm25", "dpr"), settings=SETTINGS)
    est = averaged(accounted.estimates)
    metrics = accounted.metrics.set_index("quantity")
    assert list(metrics.index) == list(continuous_metric_names("rougel", "rprec"))
    assert abs(est["rougel_1"] - 100 * runs.answer[:, :, 1].mean()) < 1e-12
    assert abs(est["rprec_0"] - 100 * runs.evidence[:, :, 0].mean()) < 1e-12
    assert abs(est["eligibility_diff"] - 100 * ((runs.evidence[:, :, 1] == 1).mean() - (runs.evidence[:, :, 0] == 1).mean())) < 1e-12
    for q in ("rougel_0", "rougel_diff", "rprec_diff", "eligibility_1"):
        assert abs(metrics.at[q, "estimate"] - est[q]) < 1e-9
        assert metrics.at[q, "lower"] <= metrics.at[q, "estimate"] <= metrics.at[q, "upper"]
    assert "accuracy_0" not in est.index and "macro_f1_0" not in est.index
    table = terminal_table(accounted, continuous_rates("rougel"))
    assert "KILT answer metric ROUGE-L, source-0 answers" in table
    assert [q for q, _ in continuous_rates("rougel")][:9] == list(continuous_metric_names("rougel", "rprec"))[:9]


def test_eq4_with_a_continuous_answer_score_still_sums_to_the_evidence_gain():
    """Per run (the runs cite different provenance): E_a = mean(c_a) mean(dE) + cov(c_a, dE)."""
    runs = kilt_runs(seed=21)
    accounted = account_runs(runs, system="rag", sources=("bm25", "dpr"), settings=SETTINGS)
    est = averaged(accounted.estimates)
    assert abs(est["eq4_sum_0"] - est["E0"]) < 1e-12 and abs(est["eq4_sum_1"] - est["E1"]) < 1e-12
    assert abs(est["eq4_direct_0"] - est["E0"]) < 1e-12
    metrics = accounted.metrics.set_index("quantity")
    assert abs(metrics.at["eq4_product_0", "estimate"] + metrics.at["eq4_covariance_0", "estimate"] - est["E0"]) < 1e-9


def test_the_statistic_on_the_totals_is_the_per_run_mean_of_the_rates():
    runs = kilt_runs(n_items=7, runs=2, seed=3)
    counts = continuous_metric_counts(runs.answer, runs.evidence, runs.eligible)
    out = continuous_metric_statistic(counts.sum(axis=0)[None])[0]
    names = continuous_metric_names("f1", "rprec")
    got = dict(zip(names, out))
    assert abs(got["f1_0"] - 100 * runs.answer[:, :, 0].mean()) < 1e-12
    assert abs(got["rprec_diff"] - 100 * (runs.evidence[:, :, 1].mean() - runs.evidence[:, :, 0].mean())) < 1e-12


def test_continuous_counts_keep_their_values_and_their_own_table():
    runs = kilt_runs(n_items=5, runs=1)
    accounted = account_runs(runs, system="rag", sources=("bm25", "dpr"), settings=SETTINGS)
    counts = accounted.counts
    assert counts["value"].dtype == np.float64 and counts_schema(counts) is CLUSTER_SCORES
    c = counts[(counts["kind"] == "C") & (counts["answer_source"] == "dpr") & (counts["evidence_source"] == "bm25")]
    expected = runs.answer[:, 0, 1] * (runs.evidence[:, 0, 0] == 1)
    assert c.sort_values("cluster_id")["value"].tolist() == expected.tolist()
    assert gemm_dtype(np.array([[[0.5]]])) == np.float64
    assert gemm_dtype(np.array([[[3]]], dtype=np.int64)) == np.float32
    integer = pd.DataFrame({"metric": ["strict"], "value": np.array([1], dtype=np.int64)})
    assert counts_schema(integer) is CLUSTER_COUNTS
