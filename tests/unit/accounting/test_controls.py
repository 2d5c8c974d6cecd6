"""The greedy controls analysed (accounting.controls) on a hand-built FEVER panel."""
import pandas as pd
import pytest

from evidence_ledger.accounting.controls import control_rows

GOLD = {"1": "SUPPORTS", "2": "REFUTES", "3": "SUPPORTS", "4": "NOT ENOUGH INFO"}


def answer(source, claim, pred, fmt="labels"):
    return {"dataset": "fever", "system": "m", "format": fmt, "replicate": 0, "parser": "strict",
            "answer_source": source, "answer_budget": "short", "claim_id": claim, "doc_id": "",
            "gold_label": GOLD[claim], "predicted_label": pred, "label_correct": pred == GOLD[claim],
            "submitted": True}


def evidence(source, claim, eligible):
    return {"dataset": "fever", "evidence_source": source, "evidence_budget": "short", "claim_id": claim,
            "doc_id": "", "eligible": eligible, "n_scored": 1, "unresolved": 0}


def tables():
    answers = pd.DataFrame(
        [answer("none", c, p) for c, p in zip("1234", ["SUPPORTS", "SUPPORTS", "SUPPORTS", "NOT ENOUGH INFO"])]
        + [answer("gold", c, p) for c, p in zip("123", ["SUPPORTS", "REFUTES", "REFUTES"])])
    ev = pd.DataFrame([evidence("none", c, c == "4") for c in "1234"] + [evidence("gold", c, True) for c in "1234"])
    relevant = pd.DataFrame({"dataset": "fever", "claim_id": list("1234"), "gold_label": list(GOLD.values()),
                             "n_relevant": 1})
    families = pd.DataFrame({"dataset": "fever", "claim_id": list("1234"), "family_id": list("1234")})
    return answers, ev, relevant, families


def test_gold_control_population_feasibility_scores_and_agreement():
    """Claim 4's gold evidence did not fit, so gold has units 1-3 of 4: feasibility 75.

    On claims 1-3 (N = 3): the none answers are correct on 1 and 3, the gold answers on 1 and
    2; empty (none) evidence is eligible for no claim of 1-3, gold evidence for all.
    T_nn = 0, T_nc = 2/3, T_cc = 2/3, T_cn = 0 -> score 66.67, score_none 0, E_none = 66.67,
    E_control = 66.67, gain = 66.67. Agreement: claim 1 (S = S) of 3 -> 33.33.
    The none control itself: 4 units, T_nn over 4 claims = claim 4 only (NEI, eligible) = 25,
    contrasts 0, agreement 100."""
    answers, ev, relevant, families = tables()
    rows = control_rows(answers, ev, relevant, families, dataset="fever", system="m", parser="strict",
                        budget="short", replicate=0, formats=["labels"], control_sources=["none", "gold"],
                        primary_sources=["bm25"], mappings=[], draws=64, seed=3, batch_size=16, tail=0.025)
    by = {(r["control"], r["quantity"]): r for r in rows}
    gold = by[("gold", "score")]
    assert (gold["units"], gold["units_total"]) == (3, 4) and gold["feasibility"] == pytest.approx(75.0)
    expected = {"score": 200 / 3, "score_none": 0.0, "E_none": 200 / 3, "E_control": 200 / 3, "gain": 200 / 3,
                "agreement": 100 / 3}
    for q, v in expected.items():
        assert by[("gold", q)]["estimate"] == pytest.approx(v), q
        assert by[("gold", q)]["lower"] <= by[("gold", q)]["upper"]
    assert by[("none", "score")]["estimate"] == pytest.approx(25.0)
    assert by[("none", "E_none")]["estimate"] == 0 and by[("none", "E_none")]["upper"] == 0
    assert by[("none", "agreement")]["estimate"] == pytest.approx(100.0)
    assert by[("none", "score")]["feasibility"] == pytest.approx(100.0)


def test_a_control_without_answers_reports_zero_units():
    """A control that was never asked (no answer rows) is reported with 0 units, feasibility 0."""
    answers, ev, relevant, families = tables()
    rows = control_rows(answers, ev, relevant, families, dataset="fever", system="m", parser="strict",
                        budget="short", replicate=0, formats=["labels"], control_sources=["none", "swap_bm25"],
                        primary_sources=["bm25"], mappings=[], draws=16, seed=3, batch_size=16, tail=0.025)
    swap = [r for r in rows if r["control"] == "swap_bm25"]
    assert len(swap) == 1 and swap[0]["units"] == 0 and swap[0]["feasibility"] == 0


def test_code_mapping_control_uses_the_sources_evidence():
    """Alternative mapping 'rotated' answered from bm25 (codes format): its answers on claims
    1-4 are S, R, R, NEI (correct on 1, 2, 4) and bm25 evidence is eligible on 1 and 4 only.
    T_cc = (claim 1 + claim 4) / 4 = 50; the codes none answers (all SUPPORTS) with bm25
    evidence: claim 1 correct and eligible -> T_nc = 25; T_nn = 0 (no claim correct and
    eligible under none: claim 4's none answer is SUPPORTS). E_none = 25, agreement = 1/4 = 25."""
    answers, ev, relevant, families = tables()
    codes_none = [answer("none", c, "SUPPORTS", fmt="codes") for c in "1234"]
    rotated = [answer("bm25", c, p, fmt="codes:rotated")
               for c, p in zip("1234", ["SUPPORTS", "REFUTES", "REFUTES", "NOT ENOUGH INFO"])]
    answers = pd.concat([answers, pd.DataFrame(codes_none + rotated)], ignore_index=True)
    ev = pd.concat([ev, pd.DataFrame([evidence("bm25", c, c in "14") for c in "1234"])], ignore_index=True)
    rows = control_rows(answers, ev, relevant, families, dataset="fever", system="m", parser="strict",
                        budget="short", replicate=0, formats=["codes"], control_sources=["none"],
                        primary_sources=["bm25"], mappings=["rotated"], draws=16, seed=3, batch_size=16,
                        tail=0.025)
    by = {(r["control"], r["quantity"]): r["estimate"] for r in rows}
    assert by[("codes:rotated@bm25", "score")] == pytest.approx(50.0)
    assert by[("codes:rotated@bm25", "E_none")] == pytest.approx(25.0)
    assert by[("codes:rotated@bm25", "score_none")] == pytest.approx(0.0)
    assert by[("codes:rotated@bm25", "agreement")] == pytest.approx(25.0)
