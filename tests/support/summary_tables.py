"""Small hand-built report TSVs at their contract paths, for the summary-page tests.

Numbers are chosen by hand so the rounded form on the page is known: e.g. the Study 1 gain
9.614 [8.7712, 10.4251] is shown ``9.61 [8.77, 10.43]``; E0 = -0.004 is shown ``0.00`` (not
``-0.00``); the DiffGR share 0.5714285714 is shown ``0.571``.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from evidence_ledger.accounting.decisions import forest_plot
from evidence_ledger.tables.report_tsv import write_report_tsv

NAN = math.nan
PATHS = {
    "study1_estimates": "results/accounting/study1/estimates.tsv",
    "study1_intervals": "results/accounting/study1/intervals.tsv",
    "study2_primary": "results/accounting/study2/intervals_primary.tsv",
    "study2_crossed": "results/accounting/study2/intervals_crossed.tsv",
    "decision_label": "results/accounting/study2/decision_label.tsv",
    "decision_criteria": "results/accounting/study2/decision_criteria.tsv",
    "forest_plot": "results/accounting/study2/forest_primary.png",
    "wikicontradict_rates": "results/wikicontradict/rates.tsv",
    "wikicontradict_detection": "results/wikicontradict/detection.tsv",
    "diffgr": "results/diffgr/diffgr.tsv",
    "diffgr_files": "results/diffgr/reader_files.tsv",
    "provenance": "results/report/provenance.tsv",
    "invalid_rates": "results/accounting/study2/invalid_rates.tsv",
    "study1_unresolved": "results/study1/unresolved.tsv",
    "study2_exploratory": "results/accounting/study2/intervals_exploratory.tsv",
    "study2_endpoints": "results/accounting/study2/endpoints.tsv",
    "study2_controls": "results/accounting/study2/controls.tsv",
    "control_generations": "results/accounting/study2/control_generations.tsv",
    "answer_accuracy": "results/accounting/study2/answer_accuracy.tsv",
    "partition": "results/accounting/study2/partition.tsv",
}


def _estimate(quantity, value, reference=NAN, population="all", replicate=-1, part=""):
    return {"population": population, "dataset": "feverous", "system": "verifier", "parser": "none",
            "quantity": quantity, "factor": "", "format": "verifier", "budget": "full", "part": part,
            "replicate": replicate, "value": value, "reference": reference, "reference_lower": NAN,
            "reference_upper": NAN}


def _interval(quantity, estimate, lower, upper, reference=NAN, ref_lower=NAN, ref_upper=NAN, population="all",
              study="study1", family="study1", dataset="feverous", system="verifier", factor=""):
    return {"study": study, "family": family, "population": population, "dataset": dataset, "system": system,
            "quantity": quantity, "factor": factor, "estimate": estimate, "lower": lower, "upper": upper,
            "boot_mean": estimate, "boot_sd": 1.0, "tail": 0.004166666667, "n_draws": 2000, "seed": 1,
            "batch_size": 128, "n_clusters": 100, "n_seed_indices": 0, "family_size": 6, "n_comparisons": 6,
            "reference": reference, "reference_lower": ref_lower, "reference_upper": ref_upper}


def study1_estimates() -> pd.DataFrame:
    rows = [_estimate("T00", 32.5, 32.41), _estimate("T01", 40.0), _estimate("T10", 33.0),
            _estimate("T11", 42.114, 42.02), _estimate("T00", 31.0, replicate=1), _estimate("gain", 9.614, 9.61),
            _estimate("E0", -0.004, 7.92),
            _estimate("A1", 2.118, 1.69), _estimate("A0", 0.5, 0.53), _estimate("E1", 9.114, 9.08),
            _estimate("interaction", 9.118, 1.15), _estimate("gain", 1.0, part="SUPPORTS"),
            _estimate("accuracy_0", 68.0, 68.09), _estimate("accuracy_1", 70.0, 70.05),
            _estimate("accuracy_diff", 2.0, 1.96), _estimate("macro_f1_0", 41.77169843),
            _estimate("macro_f1_1", 43.2), _estimate("macro_f1_diff", 1.42830157, 1.44),
            _estimate("eligibility_0", 43.0, 43.22), _estimate("eligibility_1", 55.0, 55.07),
            _estimate("eligibility_diff", 12.0, 11.85)]
    for source, (acc, product, cov) in {"0": (68.0, 8.16, -0.164), "1": (70.0, 8.4, 0.714)}.items():
        rows += [_estimate(f"eq4_direct_{source}", product + cov), _estimate(f"eq4_accuracy_{source}", acc),
                 _estimate(f"eq4_eligibility_diff_{source}", 12.0),
                 _estimate(f"eq4_product_{source}", product, {"0": 8.07, "1": 8.3}[source]),
                 _estimate(f"eq4_covariance_{source}", cov, {"0": -0.14, "1": 0.78}[source]),
                 _estimate(f"eq4_sum_{source}", product + cov)]
    rows += [_estimate("gain", 9.4, population="resolved")]
    return pd.DataFrame(rows)


def study1_intervals() -> pd.DataFrame:
    return pd.DataFrame([
        _interval("gain", 9.614, 8.7712, 10.4251, 9.61, 8.77, 10.43),
        _interval("E0", -0.004, -1.25, 1.5, 7.92), _interval("A1", 2.118, 1.0, 3.0, 1.69),
        _interval("A0", 0.5, -0.5, 1.5, 0.53), _interval("E1", 9.114, 8.0, 10.0, 9.08),
        _interval("interaction", 9.118, 7.5, 10.5, 1.15), _interval("accuracy_diff", 2.0, 0.5, 3.5, 1.96),
        _interval("gain", 9.4, 8.5, 10.3, 9.42, 8.62, 10.25, population="resolved"),
    ])


def study2_primary() -> pd.DataFrame:
    return pd.DataFrame([
        _interval("E0", 3.9, 1.9, 5.95, 3.84, 1.83, 5.91, study="study2", family="primary", system="qwen3",
                  factor="context"),
        _interval("E0", 0.25, -0.75, 1.25, study="study2", family="primary", system="qwen3", factor="format"),
    ])


def study2_crossed() -> pd.DataFrame:
    rows = []
    for system, (a, b) in {"qwen3": (2.9, 1.8), "llama31": (2.5, 2.2)}.items():
        rows.append(_interval("crossed.input_first.scoring", a, a - 1, a + 1,
                              {"qwen3": 2.91, "llama31": 2.56}[system], study="study2", family="crossed",
                              system=system, factor="context"))
        rows.append(_interval("crossed.interaction", b, b - 1, b + 1, study="study2", family="crossed",
                              system=system, factor="context"))
    return pd.DataFrame(rows)


def decision_label() -> pd.DataFrame:
    return pd.DataFrame([{"label": "restricted/mixed evidence", "factor": "", "direction": 0, "datasets": "",
                          "reason": "no factor replicated across systems", "reference_label":
                          "restricted/mixed evidence"}])


def decision_criteria() -> pd.DataFrame:
    return pd.DataFrame([
        {"dataset": "feverous", "system": "qwen3", "factor": "context", "estimate": 3.9, "lower": 1.9,
         "upper": 5.95, "direction": 1, "magnitude_ok": True, "interval_ok": True, "seeds_agreeing": 5,
         "n_seeds": 5, "seeds_ok": True, "local_ok": True, "within_bound": False},
        {"dataset": "feverous", "system": "qwen3", "factor": "format", "estimate": 0.25, "lower": -0.75,
         "upper": 1.25, "direction": 1, "magnitude_ok": False, "interval_ok": False, "seeds_agreeing": 3,
         "n_seeds": 5, "seeds_ok": False, "local_ok": False, "within_bound": True},
    ])


def wikicontradict_rates() -> pd.DataFrame:
    rows = []
    for ctype, (n, c, p, i, u) in {"explicit": (4, 2, 1, 1, 0), "implicit": (3, 1, 0, 1, 1),
                                   "all": (7, 3, 1, 2, 1)}.items():
        rows.append({"model": "qwen3", "template": "5.1", "conflict_type": ctype, "n": n, "n_correct": c,
                     "n_partial": p, "n_incorrect": i, "n_unparseable": u, "n_parsed": n - u,
                     "correct_rate": c / n, "partial_rate": p / n, "incorrect_rate": i / n,
                     "unparseable_rate": u / n})
    return pd.DataFrame(rows)


def wikicontradict_detection() -> pd.DataFrame:
    return pd.DataFrame([{"model": "qwen3", "conflict_type": ct, "n": n, "n_yes": y, "n_no": n - y,
                          "n_unparseable": 0, "detection_rate": y / n}
                         for ct, n, y in (("explicit", 4, 1), ("implicit", 3, 1), ("all", 7, 2))])


def diffgr() -> pd.DataFrame:
    return pd.DataFrame([
        {"model": "qwen3", "dataset": "nqcc", "order": "gen_first", "subset": "AIG", "n": 7, "gen_ans": 4 / 7,
         "ir_ans": 1 / 7, "llm_ans": 2 / 7, "others": 0.0, "neither_rate": 2 / 7, "diffgr": 0.6,
         "diffgr_defined": True, "ci_low": -0.2, "ci_high": 1.0, "n_draws": 2000, "n_undefined": 0, "level": 0.95},
        {"model": "qwen3", "dataset": "nqcc", "order": "gen_first", "subset": "AIR", "n": 0, "gen_ans": NAN,
         "ir_ans": NAN, "llm_ans": NAN, "others": NAN, "neither_rate": NAN, "diffgr": 0.0,
         "diffgr_defined": False, "ci_low": NAN, "ci_high": NAN, "n_draws": 2000, "n_undefined": 2000,
         "level": 0.95},
    ])


def provenance() -> pd.DataFrame:
    return pd.DataFrame([
        ("run", "config_sha256", "9484b010b0bde7b41ad1e9d51ddda6f558ef6fc6846964b1e512936a1c2f4c51"),
        ("run", "git_commit", "7b62334f41554d4a1f59675719c241add968c155"), ("run", "git_dirty", "False"),
        ("run", "kind", "demo"), ("run", "kind_reason", "data_root is resources/demo"),
        ("ran", "models.qwen3", "local build results/models/qwen3"),
        ("package", "numpy", "2.3.5"),
        ("model", "models.qwen3.hub_id", "Qwen/Qwen3-8B"),
        ("model", "models.qwen3.revision", "b968826d9c46dd6066d109eabc6255188de91218"),
    ], columns=["section", "key", "value"])


def invalid_rates() -> pd.DataFrame:
    """The strict row and the lenient row of the same cell: the reference join (no parser key)
    puts the paper's strict-parser 13.97 on both."""
    return pd.DataFrame([{"dataset": "feverous", "system": "llama31", "parser": parser, "format": "codes",
                          "n_observations": 1000, "n_with_invalid": k, "rate": k / 10, "reference": 13.97}
                         for parser, k in (("strict", 140), ("lenient", 90))])


def study1_unresolved() -> pd.DataFrame:
    rows = [("provider_bm25", "claims", 7890), ("provider_bm25", "claims_with_unresolved_in_window", 239),
            ("provider_bge", "claims", 7890), ("provider_bge", "claims_with_unresolved_in_window", 12),
            ("all", "claims", 7890), ("all", "claims_both_resolved_in_window", 7651),
            ("all", "claims_both_resolved_in_list", 7600)]
    return pd.DataFrame([{"dataset": "feverous", "source": s, "item": i, "count": c} for s, i, c in rows])


def study2_exploratory() -> pd.DataFrame:
    return pd.DataFrame([_interval("E1", 2.1, 1.1, 3.1, 2.04, study="study2", family="exploratory", system="qwen3",
                                   factor="context")])


def study2_endpoints() -> pd.DataFrame:
    def row(table, budget, quantity, estimate, lower=NAN, upper=NAN, factor="", family=""):
        return {"table": table, "dataset": "feverous", "system": "qwen3", "budget": budget, "quantity": quantity,
                "factor": factor, "estimate": estimate, "lower": lower, "upper": upper, "family": family}
    return pd.DataFrame([row(6, "long", "E0", 12.345), row(6, "short", "E0", 8.5), row(6, "long", "S11", 13.7),
                         row(6, "short", "S11", 13.1),
                         row(7, "", "E0", 3.9, 1.9, 5.95, "context", "primary"),
                         row(7, "", "E1", 2.1, 1.1, 3.1, "context", "exploratory")])


def study2_controls() -> pd.DataFrame:
    rows = []
    for quantity, est in (("E_none", 4.0), ("E_control", 1.5), ("gain", -2.5), ("agreement", 91.25)):
        rows.append({"dataset": "feverous", "system": "qwen3", "parser": "strict", "format": "codes",
                     "control": "gold", "budget": "short", "units": 45, "units_total": 50, "feasibility": 90.0,
                     "quantity": quantity, "estimate": est, "lower": est - 1, "upper": est + 1, "boot_mean": est,
                     "boot_sd": 0.5, "n_clusters": 50, "tail": 0.025, "n_draws": 2000, "seed": 1})
    return pd.DataFrame(rows + [dict(rows[0], parser="lenient", estimate=77.0)])


def control_generations() -> pd.DataFrame:
    return pd.DataFrame([
        {"study": "study2", "system": "qwen3", "dataset": "feverous", "condition": "gold",
         "quantity": "control_generations", "rows": 120, "value": 74, "reference": NAN},
        {"study": "study2", "system": "*", "dataset": "*", "condition": "all", "quantity": "control_generations",
         "rows": 9000, "value": 8000, "reference": 42834}])


def answer_accuracy() -> pd.DataFrame:
    rows = []
    for parser, source, est in (("strict", "bm25", 61.25), ("strict", "bge", 63.5), ("lenient", "bm25", 99.0)):
        for replicate in (-1, 0):
            rows.append({"dataset": "feverous", "system": "qwen3", "parser": parser, "quantity": "answer_accuracy",
                         "format": "codes", "answer_source": source, "budget": "short", "replicate": replicate,
                         "estimate": est + replicate, "lower": est - 5, "upper": est + 5, "boot_mean": est,
                         "boot_sd": 2.0, "tail": 0.025, "n_draws": 2000, "n_clusters": 50, "n_answers": 300})
    return pd.DataFrame(rows)


def partition() -> pd.DataFrame:
    return pd.DataFrame([{"dataset": "feverous", "system": "qwen3", "parser": "strict", "quantity": "E0",
                          "format": "codes", "budget": "short", "part": part, "replicate": replicate, "value": v,
                          "reference": NAN, "reference_lower": NAN, "reference_upper": NAN}
                         for part, replicate, v in (("identical", -1, 2.75), ("different", -1, 1.125),
                                                    ("identical", 0, 9.0))])


def write_summary_inputs(root) -> dict[str, Path]:
    """Every table above written (report TSV format) at its contract path under ``root``, and
    Figure 1 drawn by the real forest-plot function; name -> absolute path."""
    root = Path(root)
    paths = {name: root / rel for name, rel in PATHS.items()}
    frames = {"study1_estimates": study1_estimates(), "study1_intervals": study1_intervals(),
              "study2_primary": study2_primary(), "study2_crossed": study2_crossed(),
              "decision_label": decision_label(), "decision_criteria": decision_criteria(),
              "wikicontradict_rates": wikicontradict_rates(), "wikicontradict_detection": wikicontradict_detection(),
              "diffgr": diffgr(), "diffgr_files": diffgr().rename(columns={"model": "reader_set"}),
              "provenance": provenance(), "invalid_rates": invalid_rates(),
              "study1_unresolved": study1_unresolved(), "study2_exploratory": study2_exploratory(),
              "study2_endpoints": study2_endpoints(), "study2_controls": study2_controls(),
              "control_generations": control_generations(), "answer_accuracy": answer_accuracy(),
              "partition": partition()}
    for name, frame in frames.items():
        write_report_tsv(frame, paths[name])
    forest_plot(study2_primary(), 2.0, paths["forest_plot"], paths["forest_plot"].with_suffix(".svg"))
    return paths
