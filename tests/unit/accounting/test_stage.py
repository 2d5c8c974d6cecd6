"""The accounting rule functions called directly (no Snakemake) with temporary paths."""
import pandas as pd

from support import accounting_synthetic as syn
from support.defaults import DEFAULTS

from evidence_ledger import tables
from evidence_ledger.accounting.stage import study1_accounting, study1_bootstrap
from evidence_ledger.jobs.stage_job import stage_functions
from evidence_ledger.tables.accounting import CLUSTER_COUNTS, ESTIMATES, INTERVALS
from evidence_ledger.tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT

SOURCES = ["provider_bm25", "provider_bge"]


def _study1_inputs(root):
    answers, evidence, relevant = syn.study1_tables()
    return {name: tables.write_table(frame, root / f"{name}.parquet", schema)
            for name, frame, schema in (("answers", answers, ANSWER_INDICATORS),
                                        ("evidence", evidence, EVIDENCE_INDICATORS),
                                        ("relevant", relevant, RELEVANT))}


def test_study1_accounting_then_bootstrap_write_every_output(tmp_path):
    inputs = _study1_inputs(tmp_path / "in")
    out = tmp_path / "out"
    study1_accounting(**inputs, dataset="feverous", system="verifier", parser="none", sources=SOURCES,
                      budget="full", checkpoints=[1, 2, 3, 4], answer_format="verifier",
                      estimates_out=out / "estimates.parquet", summary_out=out / "estimates.tsv",
                      counts_out=out / "counts.parquet", coverage_out=out / "coverage.parquet",
                      unresolved_scope=DEFAULTS["accounting"]["study1"]["unresolved_scope"])
    est = tables.read_frame(out / "estimates.parquet", ESTIMATES)
    assert {"T00", "T11", "gain", "E0", "A1"} <= set(est["quantity"])
    assert set(est["population"]) == {"all", "resolved"}
    counts = tables.read_frame(out / "counts.parquet", CLUSTER_COUNTS)
    assert set(counts["population"]) == {"all", "resolved"}
    summary = pd.read_csv(out / "estimates.tsv", sep="\t")
    assert "study" not in summary.columns and len(summary) > 0

    study1_bootstrap(counts=out / "counts.parquet", sources=SOURCES, budget="full", checkpoints=[1, 2, 3, 4],
                     answer_format="verifier", draws=50, alpha=0.05, family_size=1, seed=7, batch_size=16,
                     intervals_out=out / "intervals.parquet", summary_out=out / "intervals.tsv")
    intervals = tables.read_frame(out / "intervals.parquet", INTERVALS)
    assert list(intervals["quantity"][:6]) == ["gain", "E0", "A1", "A0", "E1", "interaction"]
    assert (intervals["n_draws"] == 50).all() and (intervals["lower"] <= intervals["upper"]).all()
    assert intervals["reference"].isna().all()  # no reference file given


def test_every_accounting_rule_has_a_stage_function():
    found = {name for name, fn in stage_functions().items() if fn.__module__ == "evidence_ledger.accounting.stage"}
    assert found == {"study1_accounting", "study1_bootstrap", "study2_accounting", "study2_bootstrap",
                     "decision_labels", "study2_forest_plot", "study2_controls", "control_generations",
                     "study2_answer_accuracy", "study2_parser_sensitivity", "study1_answer_metrics",
                     "study2_endpoints", "design_tables", "study1_items", "study2_items"}
