"""The items behind a decomposition: each comparison's item means are its exact estimates (to
1e-12) for a strict, an F1 (per-claim denominators) and a continuous panel, over several runs; the
pattern says in which runs an item scores; Study 2 cell sets are cut one format and budget at a
time."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evidence_ledger.accounting.estimates import study1_cell_rows
from evidence_ledger.accounting.items import Comparison, cell_patterns, item_rows
from evidence_ledger.accounting.metrics import METRIC_MULTIPLIER
from evidence_ledger.accounting.panel import CountPanel
from evidence_ledger.accounting.pipeline_items import comparison_panel, panel_item_rows
from evidence_ledger.prediction_files.format_registry import get_format
from evidence_ledger.tables.items import ITEM_CELLS, ITEM_COMPONENTS, ITEMS

COMPARISON = Comparison("study1", "fever", "sys", "official", "none", "full", "a", "b")


def random_panel(metric: str, K: int = 40, R: int = 3, seed: int = 0) -> CountPanel:
    """One format and budget; strict 0/1 numerators, F1 counts over a claim's abstracts with
    P_a + R denominators, or continuous scores in [0, 1]."""
    rng = np.random.default_rng(seed)
    if metric == "f1":
        relevant = rng.integers(0, 3, size=K)
        predicted = rng.integers(0, 3, size=(K, R, 2))
        num = np.minimum(rng.integers(0, 3, size=(K, R, 2, 2)), predicted[:, :, :, None])
        den = predicted + relevant[:, None, None]
    elif metric == "strict":
        num = rng.integers(0, 2, size=(K, R, 2, 2))
        den = np.ones((K, R, 2), dtype=np.int64)
    else:
        num = rng.random((K, R, 2, 2)) * (rng.random((K, R, 2, 2)) < 0.7)
        den = np.ones((K, R, 2), dtype=np.int64)
    return CountPanel("fever", "sys", metric, [str(k) for k in range(K)], list(range(1, R + 1)), ["official"],
                      ["a", "b"], ["full"], ["full"], num.reshape(K, R, 1, 2, 1, 2, 1),
                      den.reshape(K, R, 1, 2, 1).astype(np.int64))


@pytest.mark.parametrize("metric", ["strict", "f1", "kilt"])
def test_item_means_are_the_exact_estimates_of_every_cell_and_component(metric):
    get_format("kilt")  # registers KILT's accounting metric (continuous numerators, T = 100 C / N)
    panel = random_panel(metric, seed={"strict": 1, "f1": 2, "kilt": 3}[metric])
    frame = item_rows(COMPARISON, panel.units, panel.num[:, :, 0, :, 0, :, 0], panel.den[:, :, 0, :, 0],
                      METRIC_MULTIPLIER[metric])
    exact = {row["quantity"]: row["value"] for row in study1_cell_rows(
        panel, dataset="fever", system="sys", parser="none", fmt="official", budget="full", replicates=[1, 2, 3])
             if row["replicate"] == -1}
    for name in ITEM_CELLS + ITEM_COMPONENTS:
        assert abs(frame[name].mean() - exact[name]) < 1e-12, name
    per_run = {row["replicate"]: row["value"] for row in study1_cell_rows(
        panel, dataset="fever", system="sys", parser="none", fmt="official", budget="full", replicates=[1, 2, 3])
               if row["quantity"] == "T01" and row["replicate"] > 0}
    runs = np.stack(frame["run_T01"].to_list())
    for r in (1, 2, 3):
        assert abs(runs[:, r - 1].mean() - per_run[r]) < 1e-12
    assert list(frame.columns) == ITEMS.columns and (frame["runs"] == 3).all()
    assert (frame["comparison"] == "study1/fever/sys/official/none/full").all()


def test_a_strict_item_s_cells_are_its_points_and_its_components_their_differences():
    num = np.array([[[[0, 1], [0, 1]], [[0, 1], [1, 1]]]])  # one item, 2 runs: T00 0, T01 1, T10 0/1, T11 1
    frame = item_rows(COMPARISON, ["c1", "c2"], np.repeat(num, 2, axis=0), np.ones((2, 2, 2), dtype=np.int64), 1)
    row = frame.iloc[0]
    assert (row["T00"], row["T01"], row["T10"], row["T11"]) == (0.0, 100.0, 50.0, 100.0)
    assert (row["E0"], row["A1"], row["A0"], row["E1"], row["interaction"]) == (100.0, 0.0, 50.0, 50.0, -50.0)
    assert row["pattern"] == "01~1" and list(row["run_T10"]) == [0.0, 100.0]


def test_the_pattern_says_in_which_runs_an_item_scores_and_when_only_partly():
    num = np.zeros((3, 2, 2, 2))
    num[0] = 1.0            # every cell in every run
    num[1, 0, 1, 1] = 1.0   # T11 in one of two runs
    num[2, :, 0, 1] = 0.5   # T01 partly (a continuous score) in both runs
    assert cell_patterns(num) == ["1111", "000~", "0~00"]


def test_a_source_without_a_denominator_in_a_run_gives_undefined_cells():
    num = np.zeros((2, 1, 2, 2), dtype=np.int64)
    den = np.zeros((2, 1, 2), dtype=np.int64)
    den[:, :, 1] = 1
    frame = item_rows(COMPARISON, ["x", "y"], num, den, 2)
    assert frame["T00"].isna().all() and (frame["T11"] == 0).all()


def test_a_study2_panel_is_cut_into_one_comparison_per_format_and_budget_with_its_own_cells():
    rng = np.random.default_rng(5)
    K, R = 12, 2
    num = rng.integers(0, 2, size=(K, R, 2, 2, 2, 2, 2))  # formats x sources x budgets x sources x budgets
    panel = CountPanel("feverous", "qwen3", "strict", [str(k) for k in range(K)], [1, 2], ["codes", "labels"],
                       ["bm25", "bge"], ["short", "long"], ["short", "long"], num, np.ones((K, R, 2, 2, 2), dtype=np.int64))
    frame = panel_item_rows(panel, study="study2", parser="strict", gold={"3": "SUPPORTS"},
                            families={str(k): f"F{k // 3}" for k in range(K)})
    assert sorted(set(frame["comparison"])) == [f"study2/feverous/qwen3/{f}/strict/{b}" for f in ("codes", "labels")
                                                 for b in ("long", "short")]
    sub = frame[frame["comparison"] == "study2/feverous/qwen3/labels/strict/long"].set_index("item_id")
    cut = comparison_panel(panel, 1, 1)
    np.testing.assert_array_equal(cut.num[:, :, 0, :, 0, :, 0], num[:, :, 1, :, 1, :, 1])
    assert sub.at["4", "T01"] == 100.0 * num[4, :, 1, 0, 1, 1, 1].mean()
    assert sub.at["3", "gold"] == "SUPPORTS" and sub.at["4", "gold"] == "" and sub.at["7", "family_id"] == "F2"
    assert np.isnan(sub["answer_0"]).all()  # no indicator frames given: no per-item answer scores


def test_item_frames_follow_the_schema_when_written(tmp_path):
    from evidence_ledger import tables

    panel = random_panel("strict", K=5, R=1)
    frame = item_rows(COMPARISON, panel.units, panel.num[:, :, 0, :, 0, :, 0], panel.den[:, :, 0, :, 0], 1,
                      gold=["SUPPORTS"] * 5, answer=np.ones((5, 1, 2)), eligible=np.zeros((5, 1, 2)))
    tables.write_table(frame, tmp_path / "items.parquet", ITEMS)
    back = tables.read_frame(tmp_path / "items.parquet", ITEMS)
    pd.testing.assert_series_equal(back["E0"], frame["E0"])
    assert (back["answer_1"] == 1.0).all() and (back["eligible_0"] == 0.0).all() and back["evidence_0"].isna().all()
