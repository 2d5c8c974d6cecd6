"""FEVER scorer: official fever-scorer semantics, edge cases, real data, indicator crossing."""
import json
import warnings

import pytest

from support.paths import shared_file
from evidence_ledger.errors import InputError
from evidence_ledger.scoring import fever

SUPPORTS, REFUTES, NEI = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"
GROUPS = [[("page", 0), ("page", 1)]]


def corpus(claims):
    """Corpus scores of ``(gold_label, gold_evidence, predicted_label, predicted_evidence)`` tuples, as the
    official scorer aggregates them."""
    return fever.corpus_score(fever.score_claim(*claim) for claim in claims)


def test_supports_evidence_subset_is_strictly_correct():
    assert fever.score_claim(SUPPORTS, GROUPS, SUPPORTS, [("page", 1), ("other", 3), ("page", 0)]).strict


def test_supports_wrong_line_is_not_strictly_correct():
    assert not fever.score_claim(SUPPORTS, GROUPS, SUPPORTS, [("page", 0), ("page", 2)]).strict


def test_supports_wrong_page_is_not_strictly_correct():
    assert not fever.score_claim(SUPPORTS, GROUPS, SUPPORTS, [("page", 0), ("pages", 1)]).strict


def test_incomplete_group_is_not_enough_but_any_complete_group_is():
    groups = [[("a", 0), ("b", 0)], [("c", 4)]]
    assert not fever.evidence_eligible(REFUTES, groups, [("a", 0)])
    assert fever.evidence_eligible(REFUTES, groups, [("a", 0), ("c", 4)])


def test_wrong_label_is_not_strictly_correct_even_with_evidence():
    assert not fever.score_claim(SUPPORTS, GROUPS, REFUTES, [("page", 0), ("page", 1)]).strict


def test_label_compare_is_case_insensitive():
    assert fever.is_correct_label("NOT ENOUGH INFO", "not enough info")
    assert fever.score_claim("supports", GROUPS, "SUPPORTS", [("page", 0), ("page", 1)]).strict


def test_nei_claim_needs_no_evidence():
    assert fever.evidence_eligible(NEI, [[(None, None)]], [])
    assert fever.score_claim(NEI, [[(None, None)]], "not enough info", []).strict


def test_only_first_five_items_count():
    predicted = [("x", i) for i in range(5)] + [("page", 0), ("page", 1)]
    assert not fever.evidence_eligible(SUPPORTS, GROUPS, predicted)
    assert fever.evidence_eligible(SUPPORTS, GROUPS, predicted, max_evidence=7)


def test_duplicates_occupy_slots():
    predicted = [("page", 0)] * 4 + [("x", 1), ("page", 1)]
    assert not fever.evidence_eligible(SUPPORTS, GROUPS, predicted)
    precision, counted = fever.evidence_macro_precision(SUPPORTS, GROUPS, predicted)
    assert (precision, counted) == (4 / 5, 1)


def test_precision_skips_gold_nei_claims():
    assert fever.evidence_macro_precision(NEI, [[(None, None)]], [("page", 0)]) == (0.0, 0)


def test_precision_of_empty_prediction_is_one():
    assert fever.evidence_macro_precision(SUPPORTS, GROUPS, []) == (1.0, 1)


def test_precision_counts_hits_among_first_five():
    predicted = [("page", 0), ("x", 1), ("page", 1), ("y", 0), ("z", 0), ("page", 2)]
    assert fever.evidence_macro_precision(SUPPORTS, [[("page", 0)], [("page", 2)], [("page", 1)]], predicted) == (
        2 / 5, 1)


def test_recall_is_one_when_gold_evidence_list_is_empty():
    assert fever.evidence_macro_recall(SUPPORTS, [], []) == (1.0, 1)
    # ... while the strict evidence condition has no group to satisfy
    assert not fever.evidence_eligible(SUPPORTS, [], [])


def test_recall_needs_a_complete_group_within_max_evidence():
    assert fever.evidence_macro_recall(SUPPORTS, GROUPS, [("page", 0), ("page", 1)], max_evidence=1) == (0.0, 1)
    assert fever.evidence_macro_recall(SUPPORTS, GROUPS, [("page", 0), ("page", 1)], max_evidence=2) == (1.0, 1)
    assert fever.evidence_macro_recall(NEI, GROUPS, []) == (0.0, 0)


def test_corpus_precision_one_and_recall_zero_when_no_claim_counts():
    score = corpus([(NEI, [[(None, None)]], NEI, [])])
    assert (score.strict_score, score.label_accuracy, score.precision, score.recall) == (1.0, 1.0, 1.0, 0.0)
    assert score.f1 == 0.0


def test_f1_is_zero_with_warning_when_precision_and_recall_are_zero():
    with pytest.warns(UserWarning, match="F1 set to 0.0"):
        score = corpus([(SUPPORTS, GROUPS, SUPPORTS, [("x", 0)])])
    assert (score.precision, score.recall, score.f1) == (0.0, 0.0, 0.0)


def test_f1_is_harmonic_mean_of_corpus_precision_and_recall():
    score = corpus([
        (SUPPORTS, GROUPS, SUPPORTS, [("page", 0), ("page", 1)]),  # P 1, R 1
        (REFUTES, [[("q", 2)]], SUPPORTS, [("q", 1), ("x", 0)]),  # P 0, R 0
        (NEI, [[(None, None)]], NEI, [("q", 1)]),  # not counted
    ])
    assert score.precision == 0.5 and score.recall == 0.5
    assert score.f1 == pytest.approx(0.5, abs=1e-15)
    assert score.strict_score == pytest.approx(2 / 3, abs=1e-15)
    assert score.label_accuracy == pytest.approx(2 / 3, abs=1e-15)


def test_strict_is_label_correct_times_evidence_eligible_for_every_case():
    cases = [(g, p, ev) for g in (SUPPORTS, REFUTES, NEI) for p in (SUPPORTS, NEI, "INVALID")
             for ev in ([], [("page", 0)], [("page", 0), ("page", 1)])]
    for gold, predicted, evidence in cases:
        s = fever.score_claim(gold, GROUPS, predicted, evidence)
        assert s.strict == (s.label_correct and s.evidence_eligible)


def test_unit_id_to_sentence_splits_at_last_double_colon():
    assert fever.unit_id_to_sentence("Page::with::colons::12") == ("Page::with::colons", 12)
    with pytest.raises(ValueError):
        fever.unit_id_to_sentence("Page:12")


# --- real data (sheffieldnlp/fever-scorer tests/) ------------------------------------


def _real_files():
    return (shared_file("fever", "fever-scorer_tests", "actual.jsonl"),
            shared_file("fever", "fever-scorer_tests", "predictions.jsonl"))


def _paper_dev():
    """paper_dev.jsonl: the labels and evidence of actual.jsonl row for row, with the real claim ids
    (actual.jsonl redacts every id to 0, which matching by id refuses as duplicate ids)."""
    return shared_file("fever", "paper_dev.jsonl")


def test_real_predictions_reproduce_official_scores():
    actual, predictions = _real_files()
    score = fever.score_files(_paper_dev(), predictions)
    assert score.strict_score == pytest.approx(0.32573257325732574, abs=1e-12)
    assert score.label_accuracy == pytest.approx(0.5208520852085209, abs=1e-12)
    assert score.precision == pytest.approx(0.1043804380438068, abs=1e-12)
    assert score.recall == pytest.approx(0.44224422442244227, abs=1e-12)
    assert score.f1 == pytest.approx(0.1688970477815144, abs=1e-12)


def test_crossing_indicators_reproduces_strict_score_on_real_predictions():
    actual, predictions = _real_files()
    gold = [json.loads(line) for line in actual.open()]
    preds = [json.loads(line) for line in predictions.open()]
    label_correct, eligible = [], []
    for g, p in zip(gold, preds):
        groups = fever.gold_sentence_groups(g["evidence"])
        evidence = [tuple(x) for x in p["predicted_evidence"]]
        label_correct.append(fever.is_correct_label(g["label"], p["predicted_label"]))
        eligible.append(fever.evidence_eligible(g["label"], groups, evidence))
    crossed = sum(c * e for c, e in zip(label_correct, eligible)) / len(gold)
    assert crossed == fever.score_files(_paper_dev(), predictions).strict_score
    # the NEI exemption is inside eligibility: every gold-NEI claim is eligible
    assert all(e for g, e in zip(gold, eligible) if g["label"] == NEI)


# --- files and malformed input -------------------------------------------------------


def _write(tmp_path, name, records):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


GOLD = [
    {"id": 1, "label": "SUPPORTS", "evidence": [[[1, 2, "P", 0]]]},
    {"id": 2, "label": "NOT ENOUGH INFO", "evidence": [[[3, None, None, None]]]},
]


def test_files_match_predictions_by_id_in_any_order(tmp_path):
    gold = _write(tmp_path, "gold.jsonl", GOLD)
    pred = _write(tmp_path, "pred.jsonl", [
        {"id": 2, "predicted_label": "NOT ENOUGH INFO", "predicted_evidence": []},
        {"id": 1, "predicted_label": "SUPPORTS", "predicted_evidence": [["P", 0]]},
    ])
    assert fever.score_files(gold, pred).strict_score == 1.0


def test_files_match_by_position_when_no_prediction_has_an_id(tmp_path):
    gold = _write(tmp_path, "gold.jsonl", [dict(r, id=0) for r in GOLD])
    pred = _write(tmp_path, "pred.jsonl", [
        {"predicted_label": "SUPPORTS", "predicted_evidence": [["P", 0]]},
        {"predicted_label": "SUPPORTS", "predicted_evidence": []},
    ])
    with pytest.warns(UserWarning, match="matched to gold claims by position"):
        score = fever.score_files(gold, pred)
    assert (score.strict_score, score.label_accuracy, score.matching) == (0.5, 0.5, "position")


def test_missing_predicted_evidence_names_the_record(tmp_path):
    gold = _write(tmp_path, "gold.jsonl", GOLD)
    pred = _write(tmp_path, "pred.jsonl", [{"id": 1, "predicted_label": "SUPPORTS"},
                                           {"id": 2, "predicted_label": "SUPPORTS", "predicted_evidence": []}])
    with pytest.raises(InputError, match=r"pred.jsonl:1: field 'predicted_evidence'"):
        fever.score_files(gold, pred)


def test_unknown_label_names_the_record(tmp_path):
    gold = _write(tmp_path, "gold.jsonl", GOLD)
    pred = _write(tmp_path, "pred.jsonl", [{"id": 1, "predicted_label": "SUPPORTS", "predicted_evidence": []},
                                           {"id": 2, "predicted_label": "MAYBE", "predicted_evidence": []}])
    with pytest.raises(InputError, match=r"pred.jsonl:2: field 'predicted_label': unknown label 'MAYBE'"):
        fever.score_files(gold, pred)


def test_unknown_and_duplicated_claim_ids_are_errors(tmp_path):
    gold = _write(tmp_path, "gold.jsonl", GOLD)
    unknown = _write(tmp_path, "unknown.jsonl", [{"id": 3, "predicted_label": "SUPPORTS", "predicted_evidence": []}])
    with pytest.raises(InputError, match="claim id '3' is not in the gold file"):
        fever.score_files(gold, unknown)
    twice = _write(tmp_path, "twice.jsonl", [{"id": 1, "predicted_label": "SUPPORTS", "predicted_evidence": []}] * 2)
    with pytest.raises(InputError, match=r"twice.jsonl:2: field 'id': claim id '1' predicted twice"):
        fever.score_files(gold, twice)


def test_evidence_line_must_be_an_integer(tmp_path):
    gold = _write(tmp_path, "gold.jsonl", GOLD[:1])
    pred = _write(tmp_path, "pred.jsonl", [{"id": 1, "predicted_label": "SUPPORTS", "predicted_evidence": [["P", "0"]]}])
    with pytest.raises(InputError, match="page<string>, line<int>"):
        fever.score_files(gold, pred)


def test_no_warning_on_regular_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        corpus([(SUPPORTS, GROUPS, SUPPORTS, [("page", 0), ("page", 1)])])
