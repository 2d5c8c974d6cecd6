"""Cross-scoring T_ab from indicators: exact identities, Eq. 4, partitions, crossed budgets."""
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from support import accounting_synthetic as syn
from support.defaults import DEFAULTS

from evidence_ledger.accounting.estimands import cell_quantities, crossed_components, factor_effect
from evidence_ledger.accounting.estimates import eq4_terms, evaluate_exact, macro_f1, study1_estimates
from evidence_ledger.accounting.panel import aggregate_to_families, build_claim_panel, claim_indicators, identical_answer_mask, panel_from_frame, panel_to_frame
from evidence_ledger.accounting.patterns import invalid_rates, pattern_examples, pattern_traces
from evidence_ledger.accounting.reference import attach_reference, read_reference
from evidence_ledger.accounting.stage import study2_accounting
from evidence_ledger import tables
from evidence_ledger.errors import InputError
from evidence_ledger.tables.accounting import CLUSTER_COUNTS, ESTIMATES, INVALID_RATES, PATTERN_TRACES
from evidence_ledger.tables.sampling import FAMILIES
from evidence_ledger.tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT

S1_SOURCES = ["provider_bm25", "provider_bge"]


def _answer(dataset, claim, src, correct, *, doc="", pred=None, gold="SUPPORTS", rep=1, fmt="verifier",
            budget="full", submitted=True, system="verifier", parser="none"):
    return {"dataset": dataset, "system": system, "format": fmt, "replicate": rep, "parser": parser,
            "answer_source": src, "answer_budget": budget, "claim_id": claim, "doc_id": doc, "gold_label": gold,
            "predicted_label": pred or (gold if correct else "REFUTES"), "label_correct": bool(correct),
            "submitted": submitted}


def _evidence(dataset, claim, src, eligible, *, doc="", budget="full", unresolved=0):
    return {"dataset": dataset, "evidence_source": src, "evidence_budget": budget, "claim_id": claim,
            "doc_id": doc, "eligible": bool(eligible), "n_scored": 1, "unresolved": unresolved}


def _small_strict():
    c0, c1 = [1, 1, 0, 1], [1, 0, 1, 1]
    e0, e1 = [1, 0, 0, 1], [1, 1, 1, 1]
    claims = ["1", "2", "3", "10"]
    ans = [_answer("feverous", c, S1_SOURCES[0], x) for c, x in zip(claims, c0)]
    ans += [_answer("feverous", c, S1_SOURCES[1], x) for c, x in zip(claims, c1)]
    ev = [_evidence("feverous", c, S1_SOURCES[0], x, unresolved=int(c == "3")) for c, x in zip(claims, e0)]
    ev += [_evidence("feverous", c, S1_SOURCES[1], x) for c, x in zip(claims, e1)]
    rel = pd.DataFrame({"dataset": "feverous", "claim_id": claims, "gold_label": "SUPPORTS", "n_relevant": 1})
    return pd.DataFrame(ans), pd.DataFrame(ev), rel


def _study1_panel(answers, evidence, relevant, reps=(1,)):
    return build_claim_panel(answers, evidence, relevant, dataset="feverous", system="verifier", parser="none",
                                 formats=["verifier"], sources=S1_SOURCES, answer_budgets=["full"],
                                 evidence_budgets=["full"], replicates=list(reps))


def test_strict_cells_are_recombined_products_of_indicators():
    panel = _study1_panel(*_small_strict())
    q = cell_quantities(0, 0)
    values = {k: evaluate_exact(panel, q[k], [1]) for k in ("T00", "T01", "T10", "T11", "E0", "A1", "A0", "E1")}
    assert values == {"T00": 50, "T01": 75, "T10": 50, "T11": 75, "E0": 25, "A1": 0, "A0": 0, "E1": 25}
    assert panel.units == ["1", "2", "3", "10"]  # numeric claim-id order


def test_scifact_f1_uses_corpus_totals_with_unretrieved_relevant_abstracts():
    ans = [_answer("scifact", "1", "bm25", True, doc="11", gold="SUPPORT", fmt="codes", budget="short",
                   system="m", parser="strict"),
           _answer("scifact", "1", "bm25", False, doc="12", gold="SUPPORT", pred="CONTRADICT", fmt="codes",
                   budget="short", system="m", parser="strict"),
           _answer("scifact", "2", "bm25", False, doc="13", gold="NOINFO", pred="NOINFO", fmt="codes",
                   budget="short", system="m", parser="strict", submitted=False)]
    ans += [dict(r, answer_source="bge") for r in ans]
    ev = [_evidence("scifact", "1", s, d == "11", doc=d, budget="short") for s in ("bm25", "bge") for d in ("11", "12")]
    ev += [_evidence("scifact", "2", s, False, doc="13", budget="short") for s in ("bm25", "bge")]
    rel = pd.DataFrame({"dataset": "scifact", "claim_id": ["1", "2"], "gold_label": ["SUPPORT", "NOINFO"],
                        "n_relevant": [2, 0]})
    panel = build_claim_panel(pd.DataFrame(ans), pd.DataFrame(ev), rel, dataset="scifact", system="m",
                                  parser="strict", formats=["codes"], sources=["bm25", "bge"],
                                  answer_budgets=["short"], evidence_budgets=["short"], replicates=[1])
    # C = 1, P = 2 submitted, R = 2 (one relevant abstract never retrieved): 2C/(P+R) = 50
    assert evaluate_exact(panel, cell_quantities(0, 0)["T00"], [1]) == 50


def _study2_panel(dataset, n_claims=60, system="qwen3"):
    answers, evidence, relevant, families = syn.study2_tables(dataset, n_claims=n_claims)
    panel = build_claim_panel(answers, evidence, relevant, dataset=dataset, system=system, parser="strict",
                                  formats=syn.FORMATS, sources=syn.SOURCES, answer_budgets=syn.BUDGETS,
                                  evidence_budgets=syn.BUDGETS, replicates=syn.REPLICATES)
    return panel, answers, families


@pytest.mark.parametrize("dataset", ["fever", "scifact"])
def test_accounting_identities_hold_exactly(dataset):
    panel, _, _ = _study2_panel(dataset)
    seeds = [1, 2, 3, 4, 5]
    for f in range(2):
        for u in range(2):
            q = {k: evaluate_exact(panel, c, seeds) for k, c in cell_quantities(f, u).items()}
            assert isinstance(q["E0"], Fraction)
            assert q["E0"] + q["A1"] == q["A0"] + q["E1"] == q["T11"] - q["T00"]
            assert q["E1"] - q["E0"] == q["A1"] - q["A0"] == q["interaction"]


@pytest.mark.parametrize("dataset", ["fever", "scifact"])
def test_identical_answer_partition_sums_to_evidence_gain(dataset):
    panel, answers, _ = _study2_panel(dataset)
    same = identical_answer_mask(answers, panel, parser="strict")
    assert 0 < same.sum() < same.size
    for name in ("E0", "E1"):
        contrast = cell_quantities(1, 0)[name]
        whole = evaluate_exact(panel, contrast, [1, 2, 3, 4, 5])
        parts = [evaluate_exact(panel, contrast, [1, 2, 3, 4, 5], mask=m) for m in (same, ~same)]
        assert parts[0] + parts[1] == whole


@pytest.mark.parametrize("dataset", ["fever", "scifact"])
def test_crossed_budget_orders_sum_to_context_contrast(dataset):
    panel, _, _ = _study2_panel(dataset)
    comps = {k: evaluate_exact(panel, c, [1, 2, 3, 4, 5]) for k, c in crossed_components().items()}
    context = evaluate_exact(panel, factor_effect("E0", "context"), [1, 2, 3, 4, 5])
    assert comps["context"] == context
    assert comps["input_first.input"] + comps["input_first.scoring"] == context
    assert comps["scoring_first.scoring"] + comps["scoring_first.input"] == context
    assert comps["input_mean"] + comps["scoring_mean"] == context
    assert comps["interaction"] == comps["input_first.scoring"] - comps["scoring_first.scoring"]


def test_crossed_cell_scores_budget_u_answers_with_budget_v_evidence():
    rows, ev = [], []
    for u, correct in (("short", False), ("long", True)):
        for src in ("bm25", "bge"):
            rows.append(_answer("fever", "1", src, correct, fmt="codes", budget=u, system="m", parser="strict"))
    for v, elig in (("short", True), ("long", False)):
        for src in ("bm25", "bge"):
            ev.append(_evidence("fever", "1", src, elig, budget=v))
    rel = pd.DataFrame({"dataset": "fever", "claim_id": ["1"], "gold_label": ["SUPPORTS"], "n_relevant": [1]})
    panel = build_claim_panel(pd.DataFrame(rows), pd.DataFrame(ev), rel, dataset="fever", system="m",
                                  parser="strict", formats=["codes"], sources=["bm25", "bge"],
                                  answer_budgets=["short", "long"], evidence_budgets=["short", "long"],
                                  replicates=[1])
    t = lambda u, v: evaluate_exact(panel, ((Fraction(1), (0, 0, u, 0, v)),), [1])
    # long-budget answers are correct, short-budget evidence is eligible: only T(long, short) scores
    assert [t(0, 0), t(0, 1), t(1, 0), t(1, 1)] == [0, 0, 100, 0]


def test_eq4_reproduces_both_evidence_gains():
    answers, evidence, relevant = syn.study1_tables()
    panel = _study1_panel(answers, evidence, relevant, reps=(1, 2, 3, 4))
    ind = claim_indicators(answers, evidence, panel, parser="none")
    q = cell_quantities(0, 0)
    for a, name in ((0, "E0"), (1, "E1")):
        exact = float(evaluate_exact(panel, q[name], [1, 2, 3, 4]))
        terms = eq4_terms(ind, a)
        assert abs(terms["product"] + terms["covariance"] - exact) < 1e-12
        assert terms["covariance"] != 0


UNRESOLVED_SCOPE = DEFAULTS["accounting"]["study1"]["unresolved_scope"]


def test_class_contributions_sum_to_the_gain_and_resolved_population_excludes_unresolved():
    answers, evidence, relevant = syn.study1_tables()
    res = study1_estimates(answers, evidence, relevant, dataset="feverous", system="verifier", parser="none",
                               sources=S1_SOURCES, budget="full", replicates=[1, 2, 3, 4],
                               unresolved_scope=UNRESOLVED_SCOPE)
    est = res["estimates"]
    avg = est[est["replicate"] == -1]
    gain = avg[(avg["quantity"] == "gain") & (avg["part"] == "") & (avg["population"] == "all")]["value"].item()
    parts = avg[(avg["quantity"] == "gain") & (avg["part"] != "")]
    assert sorted(parts["part"]) == ["NOT ENOUGH INFO", "REFUTES", "SUPPORTS"]
    assert parts["value"].sum() == pytest.approx(gain, abs=1e-12)
    n_unresolved = int((evidence.groupby("claim_id")["unresolved"].max() > 0).sum())
    assert n_unresolved > 0
    assert len(res["panels"]["resolved"].units) == len(relevant) - n_unresolved
    per_ckpt = est[(est["quantity"] == "gain") & (est["replicate"] > 0) & (est["population"] == "all")]
    assert len(per_ckpt) == 4 and per_ckpt["value"].mean() == pytest.approx(gain, abs=1e-12)
    acc0 = avg[avg["quantity"] == "accuracy_0"]["value"].item()
    assert acc0 == pytest.approx(100 * answers[answers["answer_source"] == S1_SOURCES[0]]["label_correct"].mean())


def test_verifier_unresolved_flags_define_the_resolved_population():
    answers, evidence, relevant = syn.study1_tables()
    flags = syn.study1_unresolved_flags(evidence, extra_claims={"1", "2"})
    res = study1_estimates(answers, evidence, relevant, dataset="feverous", system="verifier", parser="none",
                               sources=S1_SOURCES, budget="full", replicates=[1, 2, 3, 4], unresolved_flags=flags,
                               unresolved_scope=UNRESOLVED_SCOPE)
    resolved = res["panels"]["resolved"].units
    assert "1" not in resolved and "2" not in resolved
    assert len(resolved) == int(flags["both_resolved"].sum())
    with pytest.raises(InputError, match="unresolved flag"):
        study1_estimates(answers, evidence, relevant, dataset="feverous", system="verifier", parser="none",
                             sources=S1_SOURCES, budget="full", replicates=[1, 2, 3, 4],
                             unresolved_flags=flags.iloc[1:], unresolved_scope=UNRESOLVED_SCOPE)


def test_macro_f1_counts_invalid_as_wrong_for_every_class():
    gold = np.array(["SUPPORTS", "REFUTES", "SUPPORTS", "REFUTES"], dtype=object)
    pred = np.array(["SUPPORTS", "REFUTES", "INVALID", "SUPPORTS"], dtype=object)
    # SUPPORTS: tp 1 fp 1 fn 1 -> 0.5; REFUTES: tp 1 fp 0 fn 1 -> 2/3
    assert macro_f1(gold, pred, ["REFUTES", "SUPPORTS"]) == pytest.approx(100 * (0.5 + 2 / 3) / 2)


def test_missing_answer_row_is_an_input_error_naming_the_file():
    answers, evidence, relevant = _small_strict()
    with pytest.raises(InputError, match="answers.parquet.*claim_id"):
        build_claim_panel(answers.iloc[1:], evidence, relevant, dataset="feverous", system="verifier",
                              parser="none", formats=["verifier"], sources=S1_SOURCES, answer_budgets=["full"],
                              evidence_budgets=["full"], replicates=[1], paths={"answers": "answers.parquet"})


def test_missing_evidence_row_counts_as_ineligible_and_is_reported():
    answers, evidence, relevant = _small_strict()
    panel = _study1_panel(answers, evidence.iloc[1:], relevant)
    assert panel.coverage["answer_pairs_missing_evidence"] == 1
    assert evaluate_exact(panel, cell_quantities(0, 0)["T00"], [1]) == 25


def test_invalid_rate_counts_claim_condition_observations_over_both_sources():
    rows = []
    for rep in (0, 1):
        for budget in ("short", "long"):
            for src in ("bm25", "bge"):
                bad = rep == 1 and budget == "long" and src == "bge"
                rows.append(_answer("fever", "1", src, False, pred="INVALID" if bad else "REFUTES", fmt="codes",
                                    budget=budget, rep=rep, system="m", parser="strict"))
    rates = invalid_rates(pd.DataFrame(rows), dataset="fever", system="m", parser="strict",
                              formats=["codes"], sources=["bm25", "bge"], budgets=["short", "long"])
    assert rates[["n_observations", "n_with_invalid"]].values.tolist() == [[4, 1]]
    assert rates["rate"].item() == 25.0


def test_pattern_traces_find_evidence_only_credit_changes():
    rows, ev = [], []
    for claim, e in (("236", (True, False)), ("472", (False, True)), ("5", (True, True))):
        for src in ("bm25", "bge"):
            rows.append(_answer("feverous", claim, src, True, fmt="codes", budget="short", rep=0, system="m",
                                parser="strict"))
        ev += [_evidence("feverous", claim, "bm25", e[0], budget="short"),
               _evidence("feverous", claim, "bge", e[1], budget="short")]
    tr = pattern_traces(pd.DataFrame(rows), pd.DataFrame(ev), dataset="feverous", system="m", parser="strict",
                            formats=["codes"], sources=["bm25", "bge"], budgets=["short"])
    assert tr[["claim_id", "pattern"]].values.tolist() == [["472", "0101"], ["236", "1010"]]


def test_family_aggregation_keeps_corpus_totals_and_needs_every_claim():
    panel, _, families = _study2_panel("fever")
    fam = aggregate_to_families(panel, families)
    assert len(fam.units) == 30
    assert np.array_equal(fam.num.sum(axis=0), panel.num.sum(axis=0))
    with pytest.raises(InputError, match="no family"):
        aggregate_to_families(panel, families.iloc[1:], path="families.parquet")


def test_counts_table_round_trips_through_parquet(tmp_path):
    panel, _, families = _study2_panel("scifact", n_claims=20)
    fam = aggregate_to_families(panel, families)
    path = tables.write_table(panel_to_frame(fam, study="study2", population="all", parser="strict"),
                              tmp_path / "counts.parquet", CLUSTER_COUNTS)
    back = panel_from_frame(tables.read_frame(path, CLUSTER_COUNTS), formats=syn.FORMATS, sources=syn.SOURCES,
                                answer_budgets=syn.BUDGETS, evidence_budgets=syn.BUDGETS,
                                replicates=list(syn.REPLICATES))
    assert back.units == fam.units and back.metric == "f1"
    assert np.array_equal(back.num, fam.num) and np.array_equal(back.den, fam.den)


STUDY2_OUTPUTS = ("estimates.parquet", "contrasts.tsv", "cells.tsv", "partition.tsv", "crossed.tsv",
                  "invalid_rates.parquet", "invalid_rates.tsv", "counts.parquet", "coverage.parquet",
                  "pattern_traces.parquet", "pattern_examples.tsv")


def test_study2_accounting_outputs_are_byte_identical_across_runs(tmp_path, repo_root):
    syn.write_study2_inputs(tmp_path)
    ref = repo_root / "resources/reference/paper_values.tsv"
    out1, _ = syn.run_study2(tmp_path, tmp_path / "a", reference=ref)
    out2, _ = syn.run_study2(tmp_path, tmp_path / "b", reference=ref)
    for key in out1:
        assert out1[key].read_bytes() == out2[key].read_bytes(), key
    est = tables.read_frame(out1["estimates"], ESTIMATES)
    ctx = est[(est["quantity"] == "E0") & (est["factor"] == "context") & (est["replicate"] == -1)
              & (est["dataset"] == "fever")]
    assert ctx["value"].tolist() == [5.0, 5.0]  # the planted context effect, both models
    greedy = est[(est["quantity"] == "E0") & (est["factor"] == "format") & (est["replicate"] == 0)]
    assert len(greedy) == 4 and np.allclose(greedy["value"], 0, atol=1e-12)
    inv = tables.read_frame(out1["invalid_rates"], INVALID_RATES)
    assert set(inv["format"]) == set(syn.FORMATS) and (inv["rate"] > 0).all()
    tables.read_frame(out1["traces"], PATTERN_TRACES)


def test_reference_values_are_read_from_the_data_file(repo_root):
    ref = read_reference(repo_root / "resources/reference/paper_values.tsv")
    frame = pd.DataFrame([{"study": "study2", "population": "all", "dataset": "feverous", "system": "qwen3",
                           "quantity": "E0", "factor": "context", "format": "", "budget": "", "part": "",
                           "replicate": -1, "value": 0.0}])
    out = attach_reference(frame, ref)
    row = ref[(ref["dataset"] == "feverous") & (ref["system"] == "qwen3") & (ref["quantity"] == "E0")
              & (ref["factor"] == "context")]
    assert out["reference"].item() == row["value"].item()
    assert out["reference_lower"].item() == row["lower"].item()


def test_pattern_examples_pick_the_lowest_numeric_claim_id_among_greedy_observations():
    rows = [{"dataset": "feverous", "system": "qwen3", "format": "codes", "budget": "short", "replicate": rep,
             "claim_id": claim, "doc_id": "", "pattern": "1010", "gold_label": "SUPPORTS", "predicted_0": "SUPPORTS",
             "predicted_1": "SUPPORTS", "eligible_0": True, "eligible_1": False}
            for claim, rep in (("236", 0), ("1000", 0), ("5", 3))]
    ex = pattern_examples(pd.DataFrame(rows), greedy=0)
    assert ex[["claim_id", "n_claims_with_pattern", "conditions"]].values.tolist() == [["236", 3, "codes/short/rep0"]]
