"""Diagnostics: recall of pools and evidence, eligibility coverage, cap hits, retrieval misses,
evidence that spelled a special token."""
from evidence_ledger.evidence.diagnostics import diagnostics
from evidence_ledger.evidence.render import render_unit


def value(rows, scope, metric, source="", budget=""):
    (row,) = [r for r in rows if (r["scope"], r["metric"], r["source"], r["budget"]) == (scope, metric, source, budget)]
    return row["numerator"], row["denominator"], row["value"]


def test_fever_diagnostics_counts():
    claims = {"1": {"label": "SUPPORTS", "evidence_groups": [["A::1", "A::2"], ["B::0"]]},
              "2": {"label": "REFUTES", "evidence_groups": [["C::0"]]},
              "3": {"label": "NOT ENOUGH INFO", "evidence_groups": []}}
    retrieved = [{"claim_id": "1", "doc_ids": ["A"], "gold_doc_ids": ["A", "B"], "retrieval_miss": True},
                 {"claim_id": "2", "doc_ids": ["D"], "gold_doc_ids": ["C"], "retrieval_miss": True},
                 {"claim_id": "3", "doc_ids": ["A"], "gold_doc_ids": [], "retrieval_miss": False}]
    pools = [{"claim_id": "1", "unit_ids": ["A::2", "A::1", "A::0"], "capped": True},
             {"claim_id": "2", "unit_ids": ["D::0"], "capped": False},
             {"claim_id": "3", "unit_ids": ["A::0"], "capped": False}]
    ev = [{"claim_id": "1", "source": "bm25", "budget": "short", "visible_unit_ids": ["A::2", "A::1"],
           "visible_text": "[A] two\n[A] one", "scored_unit_ids": ["A::2"], "fits_budget": True, "unresolved": 0},
          {"claim_id": "2", "source": "bm25", "budget": "short", "visible_unit_ids": ["D::0"],
           "visible_text": render_unit("ends a turn <|im_end|>", "D"), "scored_unit_ids": ["D::0"], "fits_budget": True, "unresolved": 2},
          {"claim_id": "3", "source": "bm25", "budget": "short", "visible_unit_ids": [],
           "visible_text": "", "scored_unit_ids": [], "fits_budget": False, "unresolved": 0}]
    rows = diagnostics("fever", claims, retrieved, pools, ev)
    assert value(rows, "retrieval", "retrieval_miss_rate") == (2, 2, 1.0)
    assert value(rows, "retrieval", "no_gold_doc_retrieved") == (1, 2, 0.5)
    assert value(rows, "pool", "gold_recall") == (1, 2, 0.5)
    assert value(rows, "pool", "capped") == (1, 3, 1 / 3)
    assert value(rows, "pool", "mean_units") == (5, 3, 5 / 3)
    assert value(rows, "evidence", "visible_gold_recall", "bm25", "short") == (1, 2, 0.5)
    assert value(rows, "evidence", "scored_gold_recall", "bm25", "short") == (0, 2, 0.0)
    # only the NEI claim is eligible (FEVER needs no evidence for NEI)
    assert value(rows, "evidence", "eligible_rate", "bm25", "short") == (1, 3, 1 / 3)
    assert value(rows, "evidence", "fits_budget", "bm25", "short") == (2, 3, 2 / 3)
    assert value(rows, "evidence", "unresolved_ids", "bm25", "short") == (2, 3, 2 / 3)
    # claim 2's unit spelled <|im_end|> (rendered with a word joiner, still counted)
    assert value(rows, "evidence", "special_token_text", "bm25", "short") == (1, 3, 1 / 3)
    # FEVEROUS-style: NEI needs evidence too
    rows = diagnostics("feverous", claims, retrieved, pools, ev, needs_no_evidence=())
    assert value(rows, "evidence", "eligible_rate", "bm25", "short") == (0, 3, 0.0)


def test_scifact_groups_are_those_of_the_row_abstract():
    claims = {"1": {"label": "SUPPORT", "evidence_groups": [["11:0"], ["22:1", "22:2"]]}}
    ev = [{"claim_id": "1", "doc_id": "11", "source": "bge", "budget": "long", "visible_unit_ids": ["11:0"],
           "scored_unit_ids": ["11:0"], "fits_budget": True, "unresolved": 0, "visible_text": "a"},
          {"claim_id": "1", "doc_id": "22", "source": "bge", "budget": "long", "visible_unit_ids": ["22:1"],
           "scored_unit_ids": ["22:1"], "fits_budget": True, "unresolved": 0, "visible_text": "b"},
          {"claim_id": "1", "doc_id": "33", "source": "bge", "budget": "long", "visible_unit_ids": ["33:0"],
           "scored_unit_ids": ["33:0"], "fits_budget": True, "unresolved": 0, "visible_text": "c"}]
    rows = diagnostics("scifact", claims, [], [], ev, per_document=True)
    assert value(rows, "evidence", "scored_gold_recall", "bge", "long") == (1, 2, 0.5)
    assert value(rows, "evidence", "eligible_rate", "bge", "long") == (1, 3, 1 / 3)
    assert value(rows, "retrieval", "retrieval_miss_rate") == (0, 0, 0.0)
