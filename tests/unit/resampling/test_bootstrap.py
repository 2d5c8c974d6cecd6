"""Cluster bootstrap: counts-matrix implementation vs the per-draw reference loop."""
import numpy as np
import pytest

from support import accounting_synthetic as syn
from support.bootstrap_reference import reference_bootstrap_draws
from support.defaults import DEFAULTS

from evidence_ledger.resampling.bootstrap import bonferroni_tail, bootstrap_draws, contrast_statistic, draw_batches, multiplicities, percentile_interval
from evidence_ledger.accounting.estimands import cell_quantities, family_contrasts, linear
from evidence_ledger.accounting.estimates import evaluate_exact
from evidence_ledger.accounting.intervals import panel_counts, panel_intervals
from evidence_ledger.accounting.panel import aggregate_to_families, build_claim_panel
from evidence_ledger.accounting.stage import study1_accounting, study1_bootstrap


def _family_panel(dataset="fever", n_claims=120):
    answers, evidence, relevant, families = syn.study2_tables(dataset, n_claims=n_claims)
    panel = build_claim_panel(answers, evidence, relevant, dataset=dataset, system="qwen3", parser="strict",
                                  formats=syn.FORMATS, sources=syn.SOURCES, answer_budgets=syn.BUDGETS,
                                  evidence_budgets=syn.BUDGETS, replicates=syn.REPLICATES)
    return aggregate_to_families(panel, families)


@pytest.mark.parametrize("dataset", ["fever", "scifact"])
def test_counts_matrix_draws_are_bit_identical_to_reference_loop(dataset):
    panel = _family_panel(dataset)
    comps = family_contrasts("exploratory") + family_contrasts("primary") + family_contrasts("crossed")
    contrasts = [c for _, _, c in comps]
    counts, index = panel_counts(panel, contrasts, [1, 2, 3, 4, 5])
    stat = contrast_statistic(contrasts, index, panel.multiplier, counts)
    fast = bootstrap_draws(counts, stat, draws=300, seed=20260916, batch_size=128)
    slow = reference_bootstrap_draws(counts, stat, draws=300, seed=20260916, batch_size=128)
    assert fast.shape == (300, len(contrasts))
    assert np.array_equal(fast, slow)
    tail = bonferroni_tail(0.05, 12)
    lo_f, hi_f = percentile_interval(fast, tail)
    lo_s, hi_s = percentile_interval(slow, tail)
    assert np.array_equal(lo_f, lo_s) and np.array_equal(hi_f, hi_s)


def test_study1_draws_without_seed_resampling_match_reference():
    answers, evidence, relevant = syn.study1_tables()
    panel = build_claim_panel(answers, evidence, relevant, dataset="feverous", system="verifier", parser="none",
                                  formats=["verifier"], sources=["provider_bm25", "provider_bge"],
                                  answer_budgets=["full"], evidence_budgets=["full"], replicates=[1, 2, 3, 4])
    contrasts = [c for _, _, c in family_contrasts("study1")]
    counts, index = panel_counts(panel, contrasts, [1, 2, 3, 4])
    stat = contrast_statistic(contrasts, index, 1, counts)
    fast = bootstrap_draws(counts, stat, draws=200, seed=20261099, resample_seeds=False)
    slow = reference_bootstrap_draws(counts, stat, draws=200, seed=20261099, resample_seeds=False)
    assert np.array_equal(fast, slow)


def test_identity_resample_reproduces_exact_point_estimate():
    panel = _family_panel("scifact")
    comps = family_contrasts("primary")
    contrasts = [c for _, _, c in comps]
    counts, index = panel_counts(panel, contrasts, [1, 2, 3, 4, 5])
    totals = counts.sum(axis=0).astype(np.float64)[None]
    values = contrast_statistic(contrasts, index, panel.multiplier)(totals)[0]
    exact = [float(evaluate_exact(panel, c, [1, 2, 3, 4, 5])) for c in contrasts]
    assert np.allclose(values, exact, rtol=0, atol=1e-12)


def test_same_seed_same_draws_and_other_seed_differs():
    panel = _family_panel("fever")
    contrasts = [c for _, _, c in family_contrasts("primary")]
    counts, index = panel_counts(panel, contrasts, [1, 2, 3, 4, 5])
    stat = contrast_statistic(contrasts, index, 1)
    a = bootstrap_draws(counts, stat, draws=257, seed=5, batch_size=128)
    b = bootstrap_draws(counts, stat, draws=257, seed=5, batch_size=128)
    c = bootstrap_draws(counts, stat, draws=257, seed=6, batch_size=128)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_batches_cover_draws_with_short_last_batch():
    rng = np.random.Generator(np.random.PCG64(1))
    sizes = [idx.shape[0] for _, idx, _ in draw_batches(rng, 10, 5, 300, 128, True)]
    assert sizes == [128, 128, 44]


def test_multiplicities_count_each_draw():
    idx = np.array([[0, 0, 2], [1, 2, 2]])
    assert multiplicities(idx, 3).tolist() == [[2, 0, 1], [0, 1, 2]]


def test_paired_conditions_share_the_cluster_sample():
    # a statistic returning two copies of the same cell must give identical columns per draw,
    # and a cell contrasted with itself is exactly zero in every draw
    panel = _family_panel("fever")
    t00 = cell_quantities(0, 0)["T00"]
    zero = linear((1, t00), (-1, cell_quantities(0, 0)["T00"]))
    assert zero == ()
    contrasts = [t00, t00]
    counts, index = panel_counts(panel, contrasts, [1, 2, 3, 4, 5])
    d = bootstrap_draws(counts, contrast_statistic(contrasts, index, 1), draws=50, seed=3)
    assert np.array_equal(d[:, 0], d[:, 1])
    assert d[:, 0].std() > 0


def test_percentile_interval_linear_interpolation():
    draws = np.arange(11, dtype=float)[:, None]
    lo, hi = percentile_interval(draws, 0.05)
    assert lo[0] == pytest.approx(0.5) and hi[0] == pytest.approx(9.5)
    assert bonferroni_tail(0.05, 12) == pytest.approx(0.05 / 24)


def test_joint_bootstrap_of_models_equals_separate_bootstraps():
    answers, evidence, relevant, families = syn.study2_tables("scifact", n_claims=60)
    panels = []
    for system in ("qwen3", "llama31"):
        p = build_claim_panel(answers, evidence, relevant, dataset="scifact", system=system, parser="strict",
                                  formats=syn.FORMATS, sources=syn.SOURCES, answer_budgets=syn.BUDGETS,
                                  evidence_budgets=syn.BUDGETS, replicates=syn.REPLICATES)
        panels.append(aggregate_to_families(p, families))
    kw = dict(replicates=[1, 2, 3, 4, 5], resample_seeds=True, draws=150, seed=9, batch_size=64, tail=0.01)
    joint = panel_intervals(panels, "exploratory", **kw)
    alone = panel_intervals(panels[0], "exploratory", **kw) + panel_intervals(panels[1], "exploratory", **kw)
    assert joint == alone
    assert len(joint) == 22 and {r["system"] for r in joint} == {"qwen3", "llama31"}
    # the context effect on E0 is drawn with the exploratory family, at its tail, outside it
    companions = [r for r in joint if not r["in_family"]]
    assert [(r["quantity"], r["factor"]) for r in companions] == [("E0", "context")] * 2
    assert all(r["tail"] == 0.01 and r["n_draws"] == 150 for r in companions)


def test_exploratory_e0_companion_has_the_primary_estimate_and_wider_interval():
    """Table 7's E0 row: the same contrast as the primary family's context effect on E0 (same
    estimate, and with the same seed the same draws), bounds at the exploratory family's tail."""
    answers, evidence, relevant, families = syn.study2_tables("fever", n_claims=80)
    p = build_claim_panel(answers, evidence, relevant, dataset="fever", system="qwen3", parser="strict",
                          formats=syn.FORMATS, sources=syn.SOURCES, answer_budgets=syn.BUDGETS,
                          evidence_budgets=syn.BUDGETS, replicates=syn.REPLICATES)
    panel = aggregate_to_families(p, families)
    kw = dict(replicates=[1, 2, 3, 4, 5], resample_seeds=True, draws=400, seed=9, batch_size=64)
    primary = next(r for r in panel_intervals(panel, "primary", tail=0.05 / 24, **kw)
                   if (r["quantity"], r["factor"]) == ("E0", "context"))
    explo = next(r for r in panel_intervals(panel, "exploratory", tail=0.05 / 120, **kw) if not r["in_family"])
    assert explo["estimate"] == primary["estimate"] and explo["boot_mean"] == primary["boot_mean"]
    assert explo["lower"] <= primary["lower"] and explo["upper"] >= primary["upper"]


def test_study1_rule_functions_rerun_byte_identical(tmp_path, repo_root):
    from evidence_ledger import tables
    from evidence_ledger.tables.accounting import INTERVALS
    from evidence_ledger.tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT

    answers, evidence, relevant = syn.study1_tables()
    paths = {}
    for name, frame, schema in (("answers", answers, ANSWER_INDICATORS), ("evidence", evidence, EVIDENCE_INDICATORS),
                                ("relevant", relevant, RELEVANT)):
        paths[name] = tables.write_table(frame, tmp_path / f"{name}.parquet", schema)
    params = {"dataset": "feverous", "system": "verifier", "format": "verifier", "parser": "none",
              "sources": ["provider_bm25", "provider_bge"], "budget": "full", "checkpoints": [1, 2, 3, 4],
              "seed": 20261099, "draws": 300, "alpha": 0.05, "family_size": 1, "batch_size": 128}
    ref = repo_root / "resources/reference/paper_values.tsv"
    runs = []
    for run in ("a", "b"):
        out = {k: tmp_path / run / f"{k}.out" for k in ("estimates", "summary", "counts", "coverage")}
        accounting_params = {k: params[k] for k in ("dataset", "system", "parser", "sources", "budget",
                                                     "checkpoints")}
        study1_accounting(answers=paths["answers"], evidence=paths["evidence"], relevant=paths["relevant"],
                          reference=ref, answer_format=params["format"], **accounting_params,
                          **{f"{k}_out": v for k, v in out.items()},
                          unresolved_scope=DEFAULTS["accounting"]["study1"]["unresolved_scope"])
        boot = {"intervals": tmp_path / run / "intervals.parquet", "summary": tmp_path / run / "intervals.tsv"}
        bootstrap_params = {k: params[k] for k in ("sources", "budget", "checkpoints", "draws", "alpha",
                                                   "family_size", "seed", "batch_size")}
        study1_bootstrap(counts=out["counts"], reference=ref, answer_format=params["format"], **bootstrap_params,
                         intervals_out=boot["intervals"], summary_out=boot["summary"])
        runs.append([p.read_bytes() for p in list(out.values()) + list(boot.values())])
    assert runs[0] == runs[1]
    intervals = tables.read_frame(tmp_path / "a" / "intervals.parquet", INTERVALS)
    assert list(intervals["quantity"][:6]) == ["gain", "E0", "A1", "A0", "E1", "interaction"]
    assert (intervals["tail"] == 0.025).all() and (intervals["n_seed_indices"] == 0).all()


@pytest.mark.parametrize("merge", [False, True])
def test_null_format_effect_is_exactly_zero_in_every_strict_draw(merge):
    panel = _family_panel("fever")
    contrasts = [c for _, _, c in family_contrasts("primary")]  # format, context on E0
    counts, index = panel_counts(panel, contrasts, [1, 2, 3, 4, 5])
    stat = contrast_statistic(contrasts, index, 1, counts if merge else None)
    d = bootstrap_draws(counts, stat, draws=300, seed=2)
    if merge:  # one claim-count denominator: numerators combine exactly, then one division
        assert (d[:, 0] == 0.0).all()
    else:  # per-cell ratios summed in floating point: zero only up to rounding
        assert np.abs(d[:, 0]).max() < 1e-12
    assert (d[:, 1] > 0).mean() > 0.9  # the planted context effect


def test_non_dyadic_coefficients_are_refused():
    from fractions import Fraction

    cell = (0, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="dyadic"):
        contrast_statistic([((Fraction(1, 3), cell),)], {cell: (0, 1)}, 1)


def test_jobs_drawn_together_get_the_draws_each_gets_alone():
    """run_jobs: two statistics over different count columns of the same clusters, drawn in one
    call, give bit-identically the draws of two separate calls with the same seed."""
    from evidence_ledger.resampling.bootstrap import BootstrapJob, run_jobs

    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, size=(50, 4, 3))
    b = rng.integers(-1, 2, size=(50, 4, 2))
    stat_a = lambda tot: tot[:, :, 0].mean(axis=1, keepdims=True) / tot[:, :, 1:2].mean(axis=1)
    stat_b = lambda tot: tot.sum(axis=1)
    jobs = [BootstrapJob(a, stat_a, lambda d: d), BootstrapJob(b, stat_b, lambda d: d)]
    together = run_jobs(jobs, draws=300, seed=9, batch_size=64, resample_seeds=True)
    alone = [run_jobs([job], draws=300, seed=9, batch_size=64, resample_seeds=True)[0] for job in jobs]
    for joint, single in zip(together, alone):
        assert joint.shape == single.shape and np.array_equal(joint, single)
    assert together[1].shape == (300, 2)
