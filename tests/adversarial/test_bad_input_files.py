"""Probes: files a scorer or reader is given. Each bad file is refused naming the file and line
(or database row and field); valid but unusual files are scored with what was unusual counted
in the output. Official numbers are the fever-scorer's own expectations
(its test of real data expects strict 0.32573257325732574 for its predictions)."""
import json
import random

import pytest

from support.in_memory_release import read_feverous_wiki
from evidence_ledger.errors import InputError
from evidence_ledger.scoring import fever
from support.paths import shared_file

from .probe import run_score, write_jsonl, write_wiki_db

OFFICIAL_STRICT = 0.32573257325732574

FEVER_GOLD = [
    {"id": 1, "label": "SUPPORTS", "evidence": [[[1, 2, "P", 0]]]},
    {"id": 2, "label": "REFUTES", "evidence": [[[3, 4, "Q", 1]]]},
]
FEVER_PRED = [
    {"id": 1, "predicted_label": "SUPPORTS", "predicted_evidence": [["P", 0]]},
    {"id": 2, "predicted_label": "SUPPORTS", "predicted_evidence": [["X", 9]]},
]


def self_grading(record: dict) -> dict:
    """A prediction line that brings its own gold, agreeing with whatever it predicts."""
    evidence = [[[0, 0, page, line] for page, line in record["predicted_evidence"]]]
    return dict(record, label=record["predicted_label"], evidence=evidence)


# --- FEVER / FEVEROUS: the gold file is the only source of truth --------------------------------

def test_fever_lines_that_grade_themselves_are_scored_against_gold_and_counted(tmp_path):
    """Line 2 is wrong (REFUTES gold, SUPPORTS predicted) but carries gold saying it is right."""
    gold = write_jsonl(tmp_path / "gold.jsonl", FEVER_GOLD)
    pred = write_jsonl(tmp_path / "pred.jsonl", [FEVER_PRED[0], self_grading(FEVER_PRED[1])])
    code, out, err = run_score(["fever", "--gold", str(gold), "--predictions", str(pred)])
    assert code == 0
    result = json.loads(out)
    assert (result["strict_score"], result["own_gold_ignored"]) == (0.5, 1)
    assert f"1 of 2 lines of {pred} carry their own 'label' and 'evidence': ignored" in err


def test_fever_real_predictions_partly_self_contained_keep_the_official_score(tmp_path):
    """2,000 of the fever-scorer's 9,999 predictions given self-grading gold fields: with --gold the
    strict score stays the official one (the probe found 0.4606) and the 2,000 are counted."""
    gold = shared_file("fever", "paper_dev.jsonl")
    lines = [json.loads(x) for x in shared_file("fever", "fever-scorer_tests", "predictions.jsonl").open()]
    chosen = set(random.Random(0).sample(range(len(lines)), 2000))
    pred = write_jsonl(tmp_path / "pred.jsonl", [self_grading(r) if i in chosen else r for i, r in enumerate(lines)])
    code, out, _ = run_score(["fever", "--gold", str(gold), "--predictions", str(pred)])
    assert code == 0
    result = json.loads(out)
    assert result["strict_score"] == pytest.approx(OFFICIAL_STRICT, abs=1e-12)
    assert result["own_gold_ignored"] == 2000


def test_fever_all_lines_self_contained_still_read_the_gold_file(tmp_path):
    """Every line self-grading: the gold file is read (before, it was not read at all)."""
    gold = write_jsonl(tmp_path / "gold.jsonl", FEVER_GOLD)
    pred = write_jsonl(tmp_path / "pred.jsonl", [self_grading(r) for r in FEVER_PRED])
    result = json.loads(run_score(["fever", "--gold", str(gold), "--predictions", str(pred)])[1])
    assert (result["strict_score"], result["own_gold_ignored"]) == (0.5, 2)
    broken_gold = write_jsonl(tmp_path / "broken.jsonl", ["{not json"])
    code, _, err = run_score(["fever", "--gold", str(broken_gold), "--predictions", str(pred)])
    assert code == 2 and f"{broken_gold}:1: field '<json>': malformed JSON" in err


@pytest.mark.parametrize("benchmark", ["fever", "feverous"])
def test_no_gold_source_is_refused_and_self_contained_scoring_is_asked_for_by_name(tmp_path, benchmark):
    pred = write_jsonl(tmp_path / "pred.jsonl", [self_grading(FEVER_PRED[0])])
    code, out, err = run_score([benchmark, "--predictions", str(pred)])
    assert code == 2 and out == ""
    assert "one of the arguments --gold --self-contained-gold is required" in err
    gold = write_jsonl(tmp_path / "gold.jsonl", FEVER_GOLD)
    code, _, err = run_score([benchmark, "--gold", str(gold), "--self-contained-gold", "--predictions", str(pred)])
    assert code == 2 and "not allowed with argument" in err


def test_fever_self_contained_gold_scores_own_fields_and_refuses_a_line_without_them(tmp_path):
    pred = write_jsonl(tmp_path / "pred.jsonl", [self_grading(r) for r in FEVER_PRED])
    code, out, _ = run_score(["fever", "--self-contained-gold", "--predictions", str(pred)])
    assert code == 0 and json.loads(out)["matching"] == "self" and json.loads(out)["strict_score"] == 1.0
    mixed = write_jsonl(tmp_path / "mixed.jsonl", [self_grading(FEVER_PRED[0]), FEVER_PRED[1]])
    code, _, err = run_score(["fever", "--self-contained-gold", "--predictions", str(mixed)])
    assert code == 2 and f"{mixed}:2: field 'label': missing: with self-contained gold" in err


def test_feverous_baseline_lines_are_scored_against_the_dev_file_when_it_is_given(tmp_path):
    """The dev file says NOT ENOUGH INFO; the prediction line claims SUPPORTS as its own gold."""
    content = ["Page_sentence_0"]
    dev = write_jsonl(tmp_path / "dev.jsonl", [{"id": "", "label": "", "claim": ""},
                                              {"id": 7, "label": "NOT ENOUGH INFO", "claim": "c",
                                               "evidence": [{"content": content, "context": {}}]}])
    pred = write_jsonl(tmp_path / "pred.jsonl", [
        {"header": ""},
        {"id": 7, "label": "SUPPORTS", "evidence": [{"content": content, "context": {}}],
         "predicted_label": "SUPPORTS", "predicted_evidence": content}])
    code, out, _ = run_score(["feverous", "--gold", str(dev), "--predictions", str(pred)])
    assert code == 0
    result = json.loads(out)
    assert (result["strict_score"], result["label_accuracy"], result["own_gold_ignored"]) == (0.0, 0.0, 1)
    code, out, _ = run_score(["feverous", "--self-contained-gold", "--predictions", str(pred)])
    assert code == 0 and json.loads(out)["strict_score"] == 1.0


# --- positional matching: what the official scorer does ----------------------------------------

def test_positional_matching_scores_the_official_fixture_with_placeholder_ids(tmp_path):
    """fever-scorer tests/actual.jsonl has id 0 on every line; positionally its predictions score
    the official strict score, and the 9,999 id disagreements are reported."""
    actual = shared_file("fever", "fever-scorer_tests", "actual.jsonl")
    predictions = shared_file("fever", "fever-scorer_tests", "predictions.jsonl")
    code, out, err = run_score(["fever", "--gold", str(actual), "--predictions", str(predictions),
                                "--match", "positional"])
    assert code == 0, err
    result = json.loads(out)
    assert result["strict_score"] == pytest.approx(OFFICIAL_STRICT, abs=1e-12)
    assert (result["matching"], result["id_disagreements"]) == ("position", 9999)
    assert "on 9999 of 9999 lines the prediction id differs from the gold id" in err


def test_positional_matching_counts_disagreements_on_a_small_file(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [dict(r, id=0) for r in FEVER_GOLD])
    pred = write_jsonl(tmp_path / "pred.jsonl", FEVER_PRED)
    code, out, _ = run_score(["fever", "--gold", str(gold), "--predictions", str(pred), "--match", "positional"])
    assert code == 0 and json.loads(out)["id_disagreements"] == 2 and json.loads(out)["strict_score"] == 0.5


def test_positional_matching_still_refuses_unequal_lengths(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", FEVER_GOLD)
    pred = write_jsonl(tmp_path / "pred.jsonl", FEVER_PRED[:1])
    code, _, err = run_score(["fever", "--gold", str(gold), "--predictions", str(pred), "--match", "positional"])
    assert code == 2 and f"{pred}: matching by position: 1 predictions for 2 gold claims" in err


# --- JSON that Python cannot hold ---------------------------------------------------------------

def test_a_5001_digit_integer_names_the_file_and_line(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", FEVER_GOLD)
    big = '{"id": 2, "predicted_label": "SUPPORTS", "predicted_evidence": [["P", %s]]}' % ("9" * 5001)
    pred = write_jsonl(tmp_path / "pred.jsonl", [FEVER_PRED[0], big])
    code, _, err = run_score(["fever", "--gold", str(gold), "--predictions", str(pred)])
    assert code == 2 and f"{pred}:2: field '<json>': unreadable JSON value" in err and "Traceback" not in err


def test_malformed_line_and_duplicate_prediction_id_still_name_the_line(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", FEVER_GOLD)
    pred = write_jsonl(tmp_path / "pred.jsonl", [FEVER_PRED[0], "{oops"])
    code, _, err = run_score(["fever", "--gold", str(gold), "--predictions", str(pred)])
    assert code == 2 and f"{pred}:2: field '<json>': malformed JSON" in err
    twice = write_jsonl(tmp_path / "twice.jsonl", [FEVER_PRED[0], FEVER_PRED[0]])
    code, _, err = run_score(["fever", "--gold", str(gold), "--predictions", str(twice)])
    assert code == 2 and f"{twice}:2: field 'id': claim id '1' predicted twice" in err


# --- SciFact: empty, partial, and one abstract under two spellings ------------------------------

SCIFACT_GOLD = [{"id": 1, "claim": "a", "evidence": {"12": [{"sentences": [0], "label": "SUPPORT"}]}},
                {"id": 2, "claim": "b", "evidence": {"7": [{"sentences": [1], "label": "CONTRADICT"}]}}]
SCIFACT_PRED_1 = {"id": 1, "evidence": {"12": {"sentences": [0], "label": "SUPPORT"}}}


def test_scifact_empty_prediction_file_is_refused(tmp_path):
    gold = write_jsonl(tmp_path / "claims.jsonl", SCIFACT_GOLD)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    for extra in ([], ["--missing-claims", "empty"], ["--missing-claims", "skip"]):
        code, out, err = run_score(["scifact", "--gold", str(gold), "--predictions", str(empty), *extra])
        assert code == 2 and out == "" and f"{empty}: no predictions" in err


def test_scifact_partial_prediction_file_is_refused_unless_asked_and_then_counted(tmp_path):
    gold = write_jsonl(tmp_path / "claims.jsonl", SCIFACT_GOLD)
    pred = write_jsonl(tmp_path / "pred.jsonl", [SCIFACT_PRED_1])
    code, out, err = run_score(["scifact", "--gold", str(gold), "--predictions", str(pred)])
    assert code == 2 and out == ""
    assert f"{gold}:2: field 'id': claim id '2' has no prediction in {pred} (1 of 2 claims have none" in err
    code, out, err = run_score(["scifact", "--gold", str(gold), "--predictions", str(pred), "--missing-claims", "empty"])
    assert code == 0 and "1 of 2 claims" in err
    result = json.loads(out)
    assert result["missing_claims"] == {"count": 1, "scored_as": "empty"}
    assert result["abstract_label_only"]["recall"] == 0.5
    code, out, _ = run_score(["scifact", "--gold", str(gold), "--predictions", str(pred), "--missing-claims", "skip"])
    assert code == 0 and json.loads(out)["abstract_label_only"]["recall"] == 1.0


@pytest.mark.parametrize("spellings", [("12", "012"), ("12", "12.0"), ("12", " 12")])
def test_scifact_one_abstract_under_two_spellings_is_refused(tmp_path, spellings):
    gold = write_jsonl(tmp_path / "claims.jsonl", SCIFACT_GOLD[:1])
    a, b = spellings
    line = '{"id": 1, "evidence": {%s: {"sentences": [0], "label": "SUPPORT"}, %s: {"sentences": [1], ' \
           '"label": "CONTRADICT"}}}' % (json.dumps(a), json.dumps(b))
    pred = write_jsonl(tmp_path / "pred.jsonl", [line])
    code, _, err = run_score(["scifact", "--gold", str(gold), "--predictions", str(pred)])
    assert code == 2 and f"{pred}:1: field 'evidence':" in err
    assert "listed twice" in err or "is not an integer" in err


def test_scifact_a_key_repeated_literally_is_refused(tmp_path):
    gold = write_jsonl(tmp_path / "claims.jsonl", SCIFACT_GOLD[:1])
    line = '{"id": 1, "evidence": {"12": {"sentences": [0], "label": "SUPPORT"}, "12": {"sentences": [1], ' \
           '"label": "CONTRADICT"}}}'
    pred = write_jsonl(tmp_path / "pred.jsonl", [line])
    code, _, err = run_score(["scifact", "--gold", str(gold), "--predictions", str(pred)])
    assert code == 2 and f"{pred}:1: field '<json>': an object repeats the key '12'" in err


# --- FEVEROUS wiki database rows ----------------------------------------------------------------

PAGE = {"title": "P", "order": ["sentence_0"], "sentence_0": "text"}


@pytest.mark.parametrize("rows, where", [
    ([(None, PAGE)], r"row 1: field 'id': page id is NULL"),
    ([("", PAGE)], r"row 1: field 'id': page id is ''"),
    ([("P", dict(PAGE, sentence_0=None))], r"row 1: field 'data.sentence_0': page 'P': expected text, got null"),
    ([("P", dict(PAGE, title=None))], r"row 1: field 'data.title': page 'P': expected text, got null"),
    ([("P", ["not", "an", "object"])], r"row 1: field 'data': page 'P': expected a JSON object, got list"),
    ([("P", {"title": "P", "order": ["table_0"], "table_0": {"table": [[{"id": "cell_0_0_0", "value": "a"},
                                                                         {"id": "cell_0_0_0", "value": "b"}]]}})],
     r"row 1: field 'data.table_0.table\[0\]\[1\]': page 'P': element 'cell_0_0_0' occurs twice"),
    ([("P", {"title": "P", "order": ["table_0"], "table_0": {"table": [[{"id": "cell_0_0_0", "value": None}]]}})],
     r"row 1: field 'data.table_0.table\[0\]\[0\].value': page 'P': expected text, got null"),
    ([("P", {"title": "P", "order": ["list_0"], "list_0": {"list": [{"id": None, "value": "x"}]}})],
     r"row 1: field 'data.list_0.list\[0\].id': page 'P': element id None"),
    ([("P", PAGE), ("Q", PAGE), ("P", PAGE)], r"row 3: field 'id': duplicate page id 'P' \(first at row 1\)"),
    ([("P", "{not json")], r"row 1: field 'data': page 'P': malformed JSON"),
])
def test_feverous_wiki_row_errors_name_the_database_row_and_field(tmp_path, rows, where):
    db = write_wiki_db(tmp_path / "wiki.db", rows)
    with pytest.raises(InputError, match=rf"wiki\.db: {where}"):
        read_feverous_wiki(db)


def test_feverous_wiki_good_rows_still_read(tmp_path):
    db = write_wiki_db(tmp_path / "wiki.db", [("P", PAGE)])
    units, docs = read_feverous_wiki(db)
    assert units.column("unit_id").to_pylist() == ["P_title", "P_sentence_0"]
    assert units.column("text").to_pylist() == ["P", "text"]


def test_fever_score_files_api_refuses_to_guess_the_gold_source(tmp_path):
    pred = write_jsonl(tmp_path / "pred.jsonl", [self_grading(FEVER_PRED[0])])
    with pytest.raises(ValueError, match="exactly one source of gold"):
        fever.score_files(None, pred)
