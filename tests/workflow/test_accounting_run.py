"""The accounting rules through Snakemake on synthetic indicator tables (no upstream stages).

Synthetic scoring outputs are written at the contract paths in a temporary directory; the
accounting rules are the only ones allowed to run (``--allowed-rules``), so the test
exercises rules, scripts, params and outputs before the upstream stages exist.
"""
from pathlib import Path

import pytest

from support import accounting_synthetic as syn
from evidence_ledger import tables
from evidence_ledger.tables.accounting import COVERAGE, DECISION_LABEL, ESTIMATES, INTERVALS
from evidence_ledger.tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT
from evidence_ledger.tables.verifier import UNRESOLVED_FLAGS
from support.snakemake_runs import run_snakemake

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]
RULES = ["study1_accounting", "study1_bootstrap", "study2_accounting", "study2_bootstrap", "decision_labels",
         "study2_forest_plot"]
TARGETS = ["results/accounting/study1/intervals.tsv", "results/accounting/study1/estimates.tsv",
           "results/accounting/study2/decision_label.tsv", "results/accounting/study2/forest_primary.png",
           "results/accounting/study2/intervals_exploratory.tsv", "results/accounting/study2/intervals_crossed.tsv",
           "results/accounting/study2/pattern_examples.tsv", "results/accounting/study2/invalid_rates.tsv"]


def _snakemake(workdir, *args):
    return run_snakemake(workdir, "--configfile", REPO / "config/demo.yaml", "--cores", "2", *args,
                         "--allowed-rules", *RULES, check=True)


def test_accounting_rules_run_on_synthetic_indicators(tmp_path):
    syn.write_study2_inputs(tmp_path, datasets=("fever", "feverous", "scifact"))
    answers, evidence, relevant = syn.study1_tables()
    tables.write_table(answers, tmp_path / "results/study1/answer_indicators.parquet", ANSWER_INDICATORS)
    tables.write_table(evidence, tmp_path / "results/study1/evidence_indicators.parquet", EVIDENCE_INDICATORS)
    tables.write_table(relevant, tmp_path / "results/study1/relevant.parquet", RELEVANT)
    flags = UNRESOLVED_FLAGS.from_rows(syn.study1_unresolved_flags(evidence).to_dict("records"))
    tables.write_table(flags, tmp_path / "results/study1/unresolved.parquet", UNRESOLVED_FLAGS)
    _snakemake(tmp_path, *TARGETS)
    for target in TARGETS:
        assert (tmp_path / target).stat().st_size > 0, target
    s1 = tables.read_frame(tmp_path / "results/accounting/study1/intervals.parquet", INTERVALS)
    assert sorted(set(s1["population"])) == ["all", "resolved"] and (s1["n_draws"] == 2000).all()
    assert (s1["lower"] <= s1["estimate"]).all() and (s1["estimate"] <= s1["upper"]).all()
    gain = s1[(s1["population"] == "all") & (s1["quantity"] == "gain")].iloc[0]
    assert gain["reference"] == 9.61 and gain["seed"] == 20261099  # joined from the reference file
    primary = tables.read_frame(tmp_path / "results/accounting/study2/intervals_primary.parquet", INTERVALS)
    assert len(primary) == 12 and (primary["tail"] == 0.05 / 24).all()
    exploratory = tables.read_frame(tmp_path / "results/accounting/study2/intervals_exploratory.parquet", INTERVALS)
    # the 60 comparisons of the family, plus Table 7's E0 context effect per dataset x model drawn
    # beside them at the family's tail but not counted in it
    assert int(exploratory["in_family"].sum()) == 60 and int((~exploratory["in_family"]).sum()) == 6
    assert len(tables.read_frame(tmp_path / "results/accounting/study2/intervals_crossed.parquet", INTERVALS)) == 42
    label = tables.read_frame(tmp_path / "results/accounting/study2/decision_label.parquet", DECISION_LABEL)
    assert label["reference_label"].item() == "restricted/mixed evidence"
    est = tables.read_frame(tmp_path / "results/accounting/study2/estimates.parquet", ESTIMATES)
    assert {"strict"} == set(est["parser"])  # the synthetic tables carry no lenient rows
    coverage = tables.read_frame(tmp_path / "results/accounting/study2/coverage.parquet", COVERAGE)
    assert (coverage[coverage["item"] == "parser_absent"]["parser"] == "lenient").all()
    rerun = _snakemake(tmp_path, *TARGETS, "-n")
    assert rerun.returncode == 0 and "Nothing to be done" in rerun.stdout + rerun.stderr
