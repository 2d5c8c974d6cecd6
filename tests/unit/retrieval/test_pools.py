"""Candidate pools: page rank then document order, unit cap, pool kinds, gold documents."""
import pandas as pd

from evidence_ledger.retrieval.pools import build_pools, gold_documents

KINDS = ["sentence", "cell", "header_cell", "table_caption", "item"]


def units_frame():
    rows = [("A_sentence_1", "A", "sentence", 2), ("A_sentence_0", "A", "sentence", 1), ("A_title", "A", "title", 0),
            ("A_cell_0_0_0", "A", "cell", 3), ("B_sentence_0", "B", "sentence", 0), ("B_section_0", "B", "section", 1),
            ("B_item_0_0", "B", "item", 2), ("C_sentence_0", "C", "sentence", 0)]
    return pd.DataFrame(rows, columns=["unit_id", "doc_id", "kind", "position"])


def retrieved(doc_ids):
    return pd.DataFrame([{"dataset": "feverous", "claim_id": "7", "doc_ids": doc_ids}])


def test_pool_order_is_page_rank_then_document_order_without_title_and_section():
    row = build_pools(retrieved(["B", "A"]), units_frame(), 100, KINDS)[0]
    assert row["unit_ids"] == ["B_sentence_0", "B_item_0_0", "A_sentence_0", "A_sentence_1", "A_cell_0_0_0"]
    assert row["doc_ids"] == ["B", "B", "A", "A", "A"]
    assert row["units_available"] == 5 and row["capped"] is False


def test_pool_is_cut_at_the_cap_and_flagged():
    row = build_pools(retrieved(["A", "B"]), units_frame(), 3, KINDS)[0]
    assert row["unit_ids"] == ["A_sentence_0", "A_sentence_1", "A_cell_0_0_0"]
    assert row["units_available"] == 5 and row["capped"] is True


def test_pool_of_exactly_the_cap_is_not_flagged():
    row = build_pools(retrieved(["A"]), units_frame(), 3, KINDS)[0]
    assert len(row["unit_ids"]) == 3 and row["capped"] is False


def test_gold_documents_and_unresolved_gold_units():
    claims = pd.DataFrame([
        {"claim_id": "1", "evidence_groups": [["A_sentence_0", "B_item_0_0"], ["Z_sentence_9"]], "gold_abstracts": []},
        {"claim_id": "2", "evidence_groups": [], "gold_abstracts": [{"doc_id": "123", "label": "SUPPORT"}]},
    ])
    unit_doc = dict(zip(units_frame()["unit_id"], units_frame()["doc_id"]))
    gold, unresolved = gold_documents(claims, unit_doc)
    assert gold == {"1": ["A", "B"], "2": ["123"]}
    assert unresolved == {"1": 1, "2": 0}
