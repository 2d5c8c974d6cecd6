"""Stage functions of the post-hoc analyses of Study 2: control generations after reuse, the
parser sensitivity with shared draws, and Tables 6 / 7."""
import csv

import pandas as pd
import pytest

from evidence_ledger import tables
from evidence_ledger.accounting import stage
from evidence_ledger.tables.accounting import ESTIMATES, INTERVALS
from evidence_ledger.tables.generation import REQUESTS
from support.accounting_synthetic import study2_tables
from support.paths import REPO_ROOT


def read_tsv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def request_table(path, model, rows):
    full = [{c: None for c in REQUESTS.columns} | {"model": model, "dataset": "fever", "condition": cond,
                                                    "request_id": rid} for cond, rid in rows]
    frame = pd.DataFrame(full)
    tables.write_table(frame, path, REQUESTS)
    return path


def test_control_generations_count_unique_requests_not_reused(tmp_path):
    """Model m1: primary ids p1, p2; none asks n1 twice (two budgets, one request) and p1 (equal
    to a primary request: reused); gold asks n1 (already counted for none) and g1 -> none 1,
    gold 1. Model m2: one swap request s1 -> 1. Total 3, beside the paper's 42,834 from the
    reference file when the design counted is the paper's (one_per_unit); under the crossed
    design the reference is left out and the TSV names both designs."""
    a = request_table(tmp_path / "a.parquet", "m1", [("primary", "p1"), ("primary", "p2"), ("none", "n1"),
                                                     ("none", "n1"), ("none", "p1"), ("gold", "n1"), ("gold", "g1")])
    b = request_table(tmp_path / "b.parquet", "m2", [("primary", "p1"), ("swap", "s1")])
    out = tmp_path / "gen.tsv"
    stage.control_generations(requests=[a, b], design="one_per_unit",
                              reference=REPO_ROOT / "resources/reference/paper_values.tsv", requests_out=out)
    rows = {(r["system"], r["condition"]): r for r in read_tsv(out)}
    assert rows[("m1", "none")]["value"] == "1" and rows[("m1", "none")]["rows"] == "3"
    assert rows[("m1", "gold")]["value"] == "1"
    assert rows[("m2", "swap")]["value"] == "1"
    assert rows[("*", "all")]["value"] == "3" and float(rows[("*", "all")]["reference"]) == 42834
    assert rows[("*", "all")]["design"] == "one_per_unit" == rows[("*", "all")]["reference_design"]
    stage.control_generations(requests=[a, b], design="crossed",
                              reference=REPO_ROOT / "resources/reference/paper_values.tsv", requests_out=out)
    total = {(r["system"], r["condition"]): r for r in read_tsv(out)}[("*", "all")]
    assert total["value"] == "3" and total["reference"] == "NaN" and total["design"] == "crossed"
    assert total["reference_design"] == "one_per_unit"


def write_inputs(root, parsers=("strict", "lenient")):
    answers, evidence, relevant, families = study2_tables("fever", systems=("m",), n_claims=40)
    lenient = answers.copy()
    lenient["parser"] = "lenient"
    # the lenient parser recovers every INVALID as the gold label
    fix = lenient["predicted_label"] == "INVALID"
    lenient.loc[fix, "predicted_label"] = lenient.loc[fix, "gold_label"]
    lenient.loc[fix, "label_correct"] = True
    paths = {}
    for name, frame, schema in (("answers", pd.concat([answers, lenient]), "ANSWER_INDICATORS"),
                                ("evidence", evidence, "EVIDENCE_INDICATORS"), ("relevant", relevant, "RELEVANT")):
        from evidence_ledger.tables import scoring
        paths[name] = root / f"{name}.parquet"
        tables.write_table(frame, paths[name], getattr(scoring, schema))
    from evidence_ledger.tables.sampling import FAMILIES
    paths["families"] = root / "families.parquet"
    fam = families.assign(**{c: "" for c in FAMILIES.columns if c not in families.columns})
    tables.write_table(fam[list(FAMILIES.columns)], paths["families"], FAMILIES)
    return paths


def test_parser_sensitivity_uses_the_strict_draws(tmp_path):
    """The strict rows equal an independent primary bootstrap of the strict panel alone (same
    seed, same families: identical draws), and the lenient rows differ from them only where
    the INVALID answers the lenient parser recovers change the counts."""
    p = write_inputs(tmp_path)
    kw = dict(answers=[p["answers"]], evidence=[p["evidence"]], relevant=[p["relevant"]], families=[p["families"]],
              datasets=["fever"], models=["m"], sources=["bm25", "bge"], budgets=["short", "long"],
              formats=["codes", "labels"], seed_replicates=[1, 2, 3, 4, 5], draws=64, alpha=0.05, family_size=12,
              seed=20260916, batch_size=16)
    stage.study2_parser_sensitivity(parsers=["strict", "lenient"], counts_out=tmp_path / "c.parquet",
                                    sensitivity_out=tmp_path / "s.tsv", **kw)
    stage.study2_parser_sensitivity(parsers=["strict"], counts_out=tmp_path / "c1.parquet",
                                    sensitivity_out=tmp_path / "s1.tsv", **kw)
    both, alone = read_tsv(tmp_path / "s.tsv"), read_tsv(tmp_path / "s1.tsv")
    strict = [r for r in both if r["parser"] == "strict"]
    assert [(r["lower"], r["upper"]) for r in strict] == [(r["lower"], r["upper"]) for r in alone]
    assert {r["parser"] for r in both} == {"strict", "lenient"} and len(both) == 4
    assert all(float(r["difference_from_strict"]) == 0 for r in strict)
    counts = tables.read_frame(tmp_path / "c.parquet", stage.CLUSTER_COUNTS)
    assert set(counts["parser"]) == {"strict", "lenient"}


def test_endpoints_tables_6_and_7(tmp_path):
    """Table 6: E0 at budget short is the mean over the two formats (2 and 4 -> 3); S00 comes
    from T00 (10, 20 -> 15). Table 7: the context rows of E0 / E1 / Ebar with the exploratory
    family's intervals; E0's primary-family interval (narrower, 3.84 +- 1) is not Table 7's."""
    est = []
    for fmt, e0, t00 in (("codes", 2.0, 10.0), ("labels", 4.0, 20.0)):
        for q, v in (("E0", e0), ("T00", t00), ("T11", t00 + e0), ("source_gain", e0)):
            est.append({"study": "study2", "population": "all", "dataset": "fever", "system": "m",
                        "parser": "strict", "quantity": q, "factor": "", "format": fmt, "budget": "short",
                        "part": "", "replicate": -1, "value": v})
    est_frame = pd.DataFrame(est).assign(reference=float("nan"), reference_lower=float("nan"),
                                         reference_upper=float("nan"))
    tables.write_table(est_frame, tmp_path / "e.parquet", ESTIMATES)
    iv = []
    for fam, q, v, half in (("primary", "E0", 3.84, 1), ("exploratory", "E0", 3.84, 2), ("exploratory", "E1", 2.04, 1),
                            ("exploratory", "Ebar", 2.94, 1), ("exploratory", "S11", 1.0, 1)):
        iv.append({c: 0 for c in INTERVALS.columns} | {"study": "study2", "family": fam, "population": "all",
                                                        "dataset": "fever", "system": "m", "quantity": q,
                                                        "in_family": q != "E0" or fam == "primary",
                                                        "factor": "context", "estimate": v, "lower": v - half,
                                                        "upper": v + half, "reference": float("nan"),
                                                        "reference_lower": float("nan"),
                                                        "reference_upper": float("nan")})
    ivf = pd.DataFrame(iv)
    tables.write_table(ivf[ivf["family"] == "primary"], tmp_path / "p.parquet", INTERVALS)
    tables.write_table(ivf[ivf["family"] == "exploratory"], tmp_path / "x.parquet", INTERVALS)
    stage.study2_endpoints(estimates=tmp_path / "e.parquet", exploratory=tmp_path / "x.parquet",
                           parser="strict", endpoints_out=tmp_path / "t.tsv")
    rows = read_tsv(tmp_path / "t.tsv")
    t6 = {r["quantity"]: float(r["estimate"]) for r in rows if r["table"] == "6"}
    assert t6 == {"E0": 3.0, "S00": 15.0, "S11": 18.0, "source_gain": 3.0}
    t7 = {r["quantity"]: (float(r["estimate"]), float(r["lower"])) for r in rows if r["table"] == "7"}
    assert t7 == {"E0": (3.84, pytest.approx(1.84)), "E1": (2.04, pytest.approx(1.04)),
                  "Ebar": (2.94, pytest.approx(1.94))}


def test_design_and_population_rows_by_hand():
    """Requests of one model x dataset: primary asks r1 (bm25 short) and r2 (bge short); the none
    control asks r3 at two budgets (one request) -> primary 2 cells / 2 rows / 2 requests, none
    2 cells / 2 rows / 1 request, all 4 cells / 4 rows / 3 requests.
    Populations: pool 10, 2 excluded by reserved families, 8 eligible, 3 sampled (claims a, b, c
    in families f1, f1, f2 -> 2 families); evidence for a, b (c missing) -> 2 units; bm25
    has an unresolved id on b -> 1; 3 scored claims; model m answered a and b (2 claims)."""
    from evidence_ledger.accounting.populations import design_rows, population_rows

    req = pd.DataFrame([{"model": "m", "dataset": "fever", "condition": c, "request_id": r, "source": s,
                         "budget": b, "format": "labels", "code_mapping": "", "replicate": 0}
                        for c, r, s, b in (("primary", "r1", "bm25", "short"), ("primary", "r2", "bge", "short"),
                                           ("none", "r3", "none", "short"), ("none", "r3", "none", "long"))])
    design = {r["condition"]: (r["conditions"], r["rows"], r["requests"]) for r in design_rows(req)}
    assert design == {"primary": (2, 2, 2), "none": (2, 2, 1), "all": (4, 4, 3)}
    families = pd.DataFrame({"dataset": "fever", "claim_id": list("abcz"), "family_id": ["f1", "f1", "f2", "f9"]})
    ev = pd.DataFrame({"dataset": "fever", "evidence_source": ["bm25", "bm25"], "evidence_budget": "short",
                       "claim_id": ["a", "b"], "doc_id": "", "eligible": True, "n_scored": 1, "unresolved": [0, 1]})
    rel = pd.DataFrame({"dataset": "fever", "claim_id": list("abc"), "gold_label": "SUPPORTS", "n_relevant": 1})
    ans = pd.DataFrame({"dataset": "fever", "claim_id": ["a", "b", "a"]})
    rows = population_rows("fever", {"population": "10", "reserved_ids": "1", "excluded_by_reserved_families": "2",
                                     "eligible": "8", "selected": "3", "requested": "-1"}, list("abc"), families,
                           ev, rel, {"m": ans})
    got = {(r["step"], r["system"]): r["count"] for r in rows}
    assert got == {("sampling.population", ""): 10, ("sampling.reserved_ids", ""): 1,
                   ("sampling.excluded_by_reserved_families", ""): 2, ("sampling.eligible", ""): 8,
                   ("sampling.selected", ""): 3, ("families", ""): 2, ("evaluation_units", ""): 2,
                   ("claims_with_evidence", ""): 2, ("claims_with_unresolved.bm25", ""): 1, ("scored_claims", ""): 3,
                   ("answered_claims", "m"): 2, ("answer_rows", "m"): 3}
