"""Prediction files the official tools accept are accepted, with their numbers.

Each expected number is worked out below with the official code's semantics:
sheffieldnlp/fever-scorer ``src/fever/scorer.py`` (``fever_score``), Raldir/FEVEROUS
``src/feverous/evaluation/evaluate.py`` + ``feverous_scorer.py``, allenai/scifact
``verisci/evaluate/lib/data.py`` (``int(doc_id)``) and allenai/scifact-evaluator ``eval.py``
(cap ``max(3, shortest gold rationale)``, commit 6e3ed95).
"""
import json

import pytest

from evidence_ledger.scoring import feverous, fever, scifact


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


FEVER_SELF_CONTAINED = [
    {"id": 11, "label": "SUPPORTS", "evidence": [[[1, 2, "A", 0], [1, 3, "B", 1]]],
     "predicted_label": "SUPPORTS", "predicted_evidence": [["A", 0], ["B", 1]]},
    {"id": 12, "label": "REFUTES", "evidence": [[[5, 6, "C", 2]]],
     "predicted_label": "REFUTES", "predicted_evidence": [["D", 0]]},
]


def test_fever_prediction_lines_with_their_own_label_and_evidence(tmp_path):
    """fever_score(predictions) with no ``actual``: each instance is scored against its own fields.

    Line 1: label right; group [A0, B1] inside [A0, B1] -> strict; precision 2/2 = 1; recall 1.
    Line 2: label right; group [C2] not in [D0] -> not strict; precision 0/1 = 0; recall 0.
    strict = 1/2 = 0.5, label accuracy = 2/2 = 1.0, precision = (1+0)/2 = 0.5,
    recall = (1+0)/2 = 0.5, F1 = 2*0.5*0.5/(0.5+0.5) = 0.5.
    Only when asked for (``self_contained_gold=True``, no gold file): without either source it is
    refused. Given a gold file, the gold file alone counts: both claims gold NEI, predicted
    SUPPORTS / REFUTES -> every label wrong, strict 0.0 and accuracy 0.0; NEI claims are not
    counted in precision/recall (precision 1.0, recall 0.0, F1 0.0); the two lines' own gold
    fields are counted as ignored.
    """
    pred = _write(tmp_path / "pred.jsonl", FEVER_SELF_CONTAINED)
    expected = {"strict_score": 0.5, "label_accuracy": 1.0, "precision": 0.5, "recall": 0.5, "f1": 0.5,
                "matching": "self"}
    assert fever.score_files(None, pred, self_contained_gold=True).as_dict() == expected
    with pytest.raises(ValueError, match="exactly one source of gold"):
        fever.score_files(None, pred)
    other_gold = _write(tmp_path / "gold.jsonl", [{"id": 11, "label": "NOT ENOUGH INFO", "evidence": []},
                                                  {"id": 12, "label": "NOT ENOUGH INFO", "evidence": []}])
    with pytest.warns(UserWarning, match="2 of 2 lines .* carry their own 'label' and 'evidence': ignored"):
        scored = fever.score_files(other_gold, pred).as_dict()
    assert scored == {"strict_score": 0.0, "label_accuracy": 0.0, "precision": 1.0, "recall": 0.0, "f1": 0.0,
                      "own_gold_ignored": 2}


def test_feverous_baseline_prediction_file_with_header_line(tmp_path):
    """evaluate.py: skip line 0 (``{"header": ""}``), split each id of ``evidence[].content`` and of
    ``predicted_evidence`` into (page, type, position), then feverous_score (caps 5 / 25).

    Line 1: SUPPORTS = SUPPORTS; gold set {(Korean Air, sentence, 0), (Korean Air, cell, 1_19_0)}
      inside the 3 kept items -> strict; precision 2/3; recall 1.
    Line 2: gold NOT ENOUGH INFO, predicted REFUTES -> label wrong, not strict; the one kept item
      (Page, table_caption, 0) is the gold element -> precision 1/1; recall 1 (NEI counts in FEVEROUS).
    strict = 1/2 = 0.5, label accuracy = 1/2 = 0.5, precision = (2/3 + 1)/2 = 5/6,
    recall = (1 + 1)/2 = 1.0, F1 = 2*(5/6)*1/(5/6 + 1) = 10/11.
    Ids are the line index (not claim ids): nothing is matched to a gold file.
    """
    pred = _write(tmp_path / "baseline.jsonl", [
        {"header": ""},
        {"id": 1, "claim": "c1", "label": "SUPPORTS",
         "evidence": [{"content": ["Korean Air_sentence_0", "Korean Air_cell_1_19_0"], "context": {}}],
         "predicted_label": "SUPPORTS",
         "predicted_evidence": ["Korean Air_sentence_0", "Korean Air_cell_1_19_0", "Other_sentence_3"]},
        {"id": 2, "claim": "c2", "label": "NOT ENOUGH INFO",
         "evidence": [{"content": ["Page_table_caption_0"], "context": {}}],
         "predicted_label": "REFUTES", "predicted_evidence": ["Page_table_caption_0"]},
    ])
    score = feverous.score_files(None, pred, self_contained_gold=True)
    assert (score.strict_score, score.label_accuracy, score.recall) == (0.5, 0.5, 1.0)
    assert score.precision == pytest.approx(5 / 6, abs=1e-15)
    assert score.f1 == pytest.approx(10 / 11, abs=1e-15)
    assert score.matching == "self"


SCIFACT_GOLD = [{"id": 1, "claim": "c", "cited_doc_ids": [101],
                 "evidence": {"101": [{"sentences": [0], "label": "SUPPORT"}]}}]


def test_scifact_document_ids_compare_as_integers(tmp_path):
    """verisci/evaluate/lib/data.py keys gold and predicted abstracts by ``int(doc_id)``: "0101" is 101.

    One gold abstract, predicted with the right label and rationale [0]: every metric 1.0
    (today "0101" != "101": retrieved 1, correct 0 -> precision, recall, F1 0.0).
    """
    gold = _write(tmp_path / "claims.jsonl", SCIFACT_GOLD)
    pred = _write(tmp_path / "pred.jsonl", [{"id": 1, "evidence": {"0101": {"sentences": [0], "label": "SUPPORT"}}}])
    result = scifact.score_files(gold, pred)
    assert all(v == {"precision": 1.0, "recall": 1.0, "f1": 1.0} for v in result.values())


def test_scifact_leaderboard_sentence_cap(tmp_path):
    """Gold abstract 7 has one 4-sentence rationale {0,1,2,3}; predicted [0,1,2,3] with the right label.

    Repo evaluator (fixed cap 3): first 3 = {0,1,2} lacks 3 -> abstract_rationalized correct 0/1:
    P = R = F1 = 0.0. Leaderboard (cap max(3, 4) = 4): {0,1,2,3} -> correct 1/1: P = R = F1 = 1.0.
    Label-only and sentence-level metrics are 1.0 under both (sentence level is never capped).
    """
    gold = _write(tmp_path / "claims.jsonl", [{"id": 1, "claim": "c", "cited_doc_ids": [7],
                                               "evidence": {"7": [{"sentences": [0, 1, 2, 3], "label": "SUPPORT"}]}}])
    pred = _write(tmp_path / "pred.jsonl", [{"id": 1, "evidence": {"7": {"sentences": [0, 1, 2, 3],
                                                                          "label": "SUPPORT"}}}])
    fixed = scifact.score_files(gold, pred)
    leaderboard = scifact.score_files(gold, pred, sentence_cap="leaderboard")
    assert fixed["abstract_rationalized"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert leaderboard["abstract_rationalized"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    for metric in ("abstract_label_only", "sentence_selection", "sentence_label"):
        assert fixed[metric] == leaderboard[metric] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_scifact_claims_missing_from_predictions_refused_or_scored_as_asked(tmp_path):
    """Claims 1 and 2 each have one gold abstract; only claim 1 is predicted (correctly).

    Default: refused (the leaderboard needs a line per claim), naming gold line 2 and the count.
    ``missing="empty"`` (the leaderboard's empty prediction): relevant 2, retrieved 1, correct 1
    -> P = 1.0, R = 0.5, F1 = 2/3. ``missing="skip"`` (the repo evaluator loops over predicted
    claims only): relevant 1 -> P = R = F1 = 1.0. Both report the one missing claim.
    """
    gold = _write(tmp_path / "claims.jsonl", SCIFACT_GOLD + [dict(SCIFACT_GOLD[0], id=2)])
    pred = _write(tmp_path / "pred.jsonl", [{"id": 1, "evidence": {"101": {"sentences": [0], "label": "SUPPORT"}}}])
    with pytest.raises(ValueError, match=r"claims\.jsonl:2: field 'id': claim id '2' has no prediction .*\(1 of 2"):
        scifact.score_files(gold, pred)
    with pytest.warns(UserWarning, match="1 of 2 claims"):
        empty = scifact.score_files(gold, pred, missing="empty")
    result = empty["abstract_label_only"]
    assert (result["precision"], result["recall"]) == (1.0, 0.5)
    assert result["f1"] == pytest.approx(2 / 3, abs=1e-15)
    assert empty["missing_claims"] == {"count": 1, "scored_as": "empty"}
    with pytest.warns(UserWarning, match="1 of 2 claims"):
        skipped = scifact.score_files(gold, pred, missing="skip")
    assert skipped["abstract_label_only"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert skipped["missing_claims"] == {"count": 1, "scored_as": "skip"}
