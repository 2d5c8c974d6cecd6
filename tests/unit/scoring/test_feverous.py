"""FEVEROUS scorer: official Raldir/FEVEROUS semantics (id split, 5/25 truncation, no NEI exemption)."""
import json
import warnings

import pytest

from evidence_ledger.errors import InputError
from evidence_ledger.scoring import feverous

SUPPORTS, NEI = "SUPPORTS", "NOT ENOUGH INFO"
S = feverous.split_element_id


def corpus(claims):
    """Corpus scores of ``(gold_label, gold_evidence, predicted_label, predicted_evidence)`` tuples, as the
    official scorer aggregates them."""
    return feverous.corpus_score(feverous.score_claim(*claim) for claim in claims)


def test_split_sentence_and_cell_ids():
    assert S("Korean Air_cell_1_19_0") == ("Korean Air", "cell", "1_19_0")
    assert S("Wolfgang Niedecken_sentence_1") == ("Wolfgang Niedecken", "sentence", "1")
    assert S("Page_item_0_2") == ("Page", "item", "0_2")
    assert S("Page_title") == ("Page", "title", "")
    assert S("Page_section_1") == ("Page", "section", "1")


def test_header_cell_and_table_caption_are_two_token_types():
    assert S("Page_header_cell_0_0_1") == ("Page", "header_cell", "0_0_1")
    assert S("Page_table_caption_0") == ("Page", "table_caption", "0")


def test_cell_budget_25_is_independent_of_sentence_budget():
    sentences = [("P", "sentence", str(i)) for i in range(7)]
    cells = [("P", "cell", f"0_{i}_0") for i in range(30)]
    kept = feverous.truncate_evidence(sentences + cells)
    assert kept == sentences[:5] + cells[:25]
    # order of the kinds does not matter: each budget counts its own kind only
    assert feverous.truncate_evidence(cells + sentences) == cells[:25] + sentences[:5]


def test_title_and_section_use_the_sentence_budget_and_caption_the_cell_budget():
    items = [("P", "title", ""), ("P", "section", "1")] + [("P", "sentence", str(i)) for i in range(4)]
    assert feverous.truncate_evidence(items) == items[:5]
    cell_like = [("P", t, "0") for t in ("cell", "item", "table_caption", "header_cell")] * 7
    assert len(feverous.truncate_evidence(cell_like)) == 25


def test_duplicates_consume_budget():
    items = [("P", "sentence", "0")] * 5 + [("P", "sentence", "1")]
    assert feverous.truncate_evidence(items) == items[:5]
    s = feverous.score_claim(SUPPORTS, [[("P", "sentence", "0"), ("P", "sentence", "1")]], SUPPORTS, items)
    assert not s.evidence_eligible


def test_nei_claim_needs_evidence_too():
    gold = [[("P", "sentence", "3")]]
    assert not feverous.score_claim(NEI, gold, NEI, []).strict
    assert feverous.score_claim(NEI, gold, NEI, [("P", "sentence", "3")]).strict


def test_claim_without_gold_sets_is_never_eligible_but_has_recall_one():
    s = feverous.score_claim(NEI, [], NEI, [("P", "sentence", "3")])
    assert (s.evidence_eligible, s.strict, s.recall, s.recall_counted) == (False, False, 1.0, 1)


def test_precision_and_recall_count_nei_claims():
    s = feverous.score_claim(NEI, [[("P", "sentence", "3")]], SUPPORTS, [("P", "sentence", "3"), ("Q", "cell", "0_0_0")])
    assert (s.precision, s.precision_counted, s.recall, s.recall_counted) == (0.5, 1, 1.0, 1)


def test_empty_prediction_has_precision_one():
    assert feverous.evidence_macro_precision([[("P", "sentence", "3")]], []) == (1.0, 1.0)


def test_truncation_applies_before_precision():
    preds = [("P", "sentence", str(i)) for i in range(10)]
    s = feverous.score_claim(SUPPORTS, [[("P", "sentence", "9")]], SUPPORTS, preds)
    assert (s.precision, s.recall, s.strict) == (0.0, 0.0, False)
    s = feverous.score_claim(SUPPORTS, [[("P", "sentence", "9")]], SUPPORTS, preds, max_evidence=10)
    assert (s.precision, s.recall, s.strict) == (0.1, 1.0, True)


def test_corpus_score_and_zero_f1_warning():
    gold = [[("P", "sentence", "1")]]
    score = corpus([
        (SUPPORTS, gold, "supports", [("P", "sentence", "1")]),
        (NEI, [[("Q", "cell", "0_1_1")]], NEI, [("Q", "cell", "0_1_1"), ("Q", "sentence", "0")]),
        (NEI, [[("R", "sentence", "0")]], SUPPORTS, []),
    ])
    assert score.strict_score == pytest.approx(2 / 3, abs=1e-15)
    assert score.label_accuracy == pytest.approx(2 / 3, abs=1e-15)
    assert score.precision == pytest.approx((1 + 0.5 + 1) / 3, abs=1e-15)
    assert score.recall == pytest.approx(2 / 3, abs=1e-15)
    with pytest.warns(UserWarning, match="F1 set to 0.0"):
        zero = corpus([(SUPPORTS, gold, SUPPORTS, [("X", "sentence", "0")])])
    assert zero.f1 == 0.0


def test_strict_is_label_correct_times_evidence_eligible():
    gold = [[("P", "sentence", "1"), ("P", "cell", "0_0_0")]]
    for label in (SUPPORTS, NEI, "INVALID"):
        for preds in ([], [("P", "sentence", "1")], [("P", "sentence", "1"), ("P", "cell", "0_0_0")]):
            s = feverous.score_claim(NEI, gold, label, preds)
            assert s.strict == (s.label_correct and s.evidence_eligible)


# --- files ---------------------------------------------------------------------------


def _write(tmp_path, name, records):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


HEADER = {"id": "", "claim": "", "label": "", "evidence": [], "annotator_operations": "", "challenge": ""}
GOLD = [
    {"id": 10, "claim": "c", "label": "SUPPORTS",
     "evidence": [{"content": ["Korean Air_cell_1_19_0", "Korean Air_sentence_0"], "context": {}}]},
    {"id": 11, "claim": "d", "label": "NOT ENOUGH INFO",
     "evidence": [{"content": ["Page_header_cell_0_0_1"], "context": {}}]},
]


def test_files_with_header_line_ids_and_triples(tmp_path):
    gold = _write(tmp_path, "dev.jsonl", [HEADER] + GOLD)
    pred = _write(tmp_path, "pred.jsonl", [
        {"id": 11, "predicted_label": "NOT ENOUGH INFO", "predicted_evidence": [["Page", "header_cell", "0_0_1"]]},
        {"id": 10, "predicted_label": "SUPPORTS",
         "predicted_evidence": ["Korean Air_sentence_0", "Korean Air_cell_1_19_0"]},
    ])
    assert feverous.score_files(gold, pred).as_dict() == {
        "strict_score": 1.0, "label_accuracy": 1.0, "precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_files_without_ids_match_by_position(tmp_path):
    gold = _write(tmp_path, "dev.jsonl", [HEADER] + GOLD)
    pred = _write(tmp_path, "pred.jsonl", [
        {"predicted_label": "SUPPORTS", "predicted_evidence": [["Korean Air", "cell", "1_19_0"]]},
        {"predicted_label": "NOT ENOUGH INFO", "predicted_evidence": ["Page_header_cell_0_0_1"]},
    ])
    score = feverous.score_files(gold, pred)
    assert (score.strict_score, score.label_accuracy, score.recall) == (0.5, 1.0, 0.5)


def test_malformed_prediction_item_names_the_record(tmp_path):
    gold = _write(tmp_path, "dev.jsonl", GOLD)
    pred = _write(tmp_path, "pred.jsonl", [
        {"id": 10, "predicted_label": "SUPPORTS", "predicted_evidence": [["Korean Air", "cell", 1]]},
        {"id": 11, "predicted_label": "SUPPORTS", "predicted_evidence": []},
    ])
    with pytest.raises(InputError, match=r"pred.jsonl:1: field 'predicted_evidence': item 0"):
        feverous.score_files(gold, pred)


def test_missing_prediction_for_a_gold_claim_is_an_error(tmp_path):
    gold = _write(tmp_path, "dev.jsonl", GOLD)
    pred = _write(tmp_path, "pred.jsonl", [{"id": 10, "predicted_label": "SUPPORTS", "predicted_evidence": []}])
    with pytest.raises(InputError, match="claim id '11' has no prediction"):
        feverous.score_files(gold, pred)


def test_no_warning_on_regular_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        corpus([(SUPPORTS, [[("P", "sentence", "1")]], SUPPORTS, [("P", "sentence", "1")])])
