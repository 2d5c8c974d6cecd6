"""``score kilt`` bad input: one ``error:`` line naming the file and line, exit 2, nothing on stdout."""
import argparse
import json

import pytest

from evidence_ledger.errors import InputError
from evidence_ledger.commands import score as score_command
from evidence_ledger.scoring.kilt import score_kilt_files

GOOD_GOLD = {"id": 1, "input": "q", "output": [{"answer": "Paris", "provenance": [{"wikipedia_id": 5}]}]}
GOOD_GUESS = {"id": 1, "output": [{"answer": "Paris", "provenance": [{"wikipedia_id": 5}]}]}


def write_lines(path, lines):
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def run_score_kilt(argv, capsys):
    parser = argparse.ArgumentParser(prog="python -m evidence_ledger")
    score_command.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["score", "kilt", *argv])
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


BAD_PREDICTIONS = [
    ("no output", [{"id": 1}], 1, "output", "exactly one output object per prediction, got none"),
    ("empty output", [{"id": 1, "output": []}], 1, "output", "got 0 outputs"),
    ("two outputs", [{"id": 1, "output": [{"answer": "a"}, {"answer": "b"}]}], 1, "output", "got 2 outputs"),
    ("output without answer", [{"id": 1, "output": [{"provenance": []}]}], 1, "answer", "missing"),
    ("answer a list", [{"id": 1, "output": [{"answer": ["a"]}]}], 1, "answer", "expected a string, got list"),
    ("provenance not a list", [{"id": 1, "output": [{"answer": "a", "provenance": {"wikipedia_id": 5}}]}], 1,
     "provenance", "expected a list of objects"),
    ("text not a string", [{"id": 1, "output": [{"answer": "a", "provenance": [{"text": 3}]}]}], 1,
     "provenance.text", "expected a string, got int"),
    ("text null", [{"id": 1, "output": [{"answer": "a", "provenance": [{"wikipedia_id": 5, "text": None}]}]}], 1,
     "provenance.text", "expected a string, got null"),
    ("duplicated id", [GOOD_GUESS, {**GOOD_GUESS, "id": "1"}], 2, "id", "id '1' predicted twice (first at line 1)"),
    ("id missing", [{"output": [{"answer": "a"}]}], 1, "id", "missing"),
    ("id an object", [{"id": {"n": 1}, "output": [{"answer": "a"}]}], 1, "id", "expected a string or a number"),
    ("not JSON", ["{\"id\": 1,"], 1, "<json>", "malformed JSON"),
    ("not an object", ["[1, 2]"], 1, "<json>", "expected a JSON object, got list"),
]


@pytest.mark.parametrize("case, lines, line, field, message", BAD_PREDICTIONS, ids=[c[0] for c in BAD_PREDICTIONS])
def test_a_bad_prediction_is_one_error_naming_the_prediction_file_and_line(tmp_path, capsys, case, lines, line, field,
                                                                          message):
    gold = write_lines(tmp_path / "gold.jsonl", [GOOD_GOLD])
    predictions = write_lines(tmp_path / "pred.jsonl", lines)
    with pytest.raises(InputError) as error:
        score_kilt_files(gold, predictions)
    assert (error.value.path, error.value.line, error.value.field) == (str(predictions), line, field)
    assert message in error.value.message
    code, out, err = run_score_kilt(["--gold", str(gold), "--predictions", str(predictions)], capsys)
    assert (code, out) == (2, "")
    assert err == f"error: {error.value}\n"


BAD_GOLD = [
    ("no answer at all", [{"id": 1, "output": [{"answer": " "}, {"provenance": []}]}], 1, "output", "no gold answer"),
    ("output empty", [{"id": 1, "output": []}], 1, "output", "expected a non-empty list of objects"),
    ("answer a number", [{"id": 1, "output": [{"answer": 5}]}], 1, "answer", "expected a string, got int"),
    ("title a number", [{"id": 1, "output": [{"answer": "a", "provenance": [{"title": 5}]}]}], 1, "provenance.title",
     "expected a string, got int"),
    ("input a list", [{**GOOD_GOLD, "input": ["q"]}], 1, "input", "expected a string, got list"),
    ("duplicated id", [GOOD_GOLD, {**GOOD_GOLD, "id": " 1"}], 2, "id", "id '1' occurs twice (lines 1 and 2)"),
    ("id missing", [{"output": GOOD_GOLD["output"]}], 1, "id", "missing"),
    ("id without prediction", [GOOD_GOLD, {**GOOD_GOLD, "id": 2}], 2, "id", "id '2' has no prediction in"),
]


@pytest.mark.parametrize("case, lines, line, field, message", BAD_GOLD, ids=[c[0] for c in BAD_GOLD])
def test_a_bad_gold_item_is_one_error_naming_the_gold_file_and_line(tmp_path, capsys, case, lines, line, field,
                                                                    message):
    gold = write_lines(tmp_path / "gold.jsonl", lines)
    predictions = write_lines(tmp_path / "pred.jsonl", [GOOD_GUESS])
    with pytest.raises(InputError) as error:
        score_kilt_files(gold, predictions)
    assert (error.value.path, error.value.line, error.value.field) == (str(gold), line, field)
    assert message in error.value.message
    code, out, err = run_score_kilt(["--gold", str(gold), "--predictions", str(predictions)], capsys)
    assert (code, out, err) == (2, "", f"error: {error.value}\n")


def test_a_null_gold_title_is_skipped_as_kilt_skips_it(tmp_path):
    """KILT's ``get_gold_titles`` skips an empty title; a predicted ``text`` must be a string (its
    in-context metrics normalise it), null refused above."""
    gold = write_lines(tmp_path / "gold.jsonl", [{**GOOD_GOLD, "output": [
        {"answer": "Paris", "provenance": [{"wikipedia_id": 5, "title": None}]}]}])
    predictions = write_lines(tmp_path / "pred.jsonl", [GOOD_GUESS])
    assert score_kilt_files(gold, predictions)["downstream"]["em"] == 1.0


def test_retrieval_only_needs_exactly_one_output_with_provenance(tmp_path):
    gold = write_lines(tmp_path / "gold.jsonl", [GOOD_GOLD])
    predictions = write_lines(tmp_path / "pred.jsonl", [{"id": 1, "output": [{"answer": "a"}, {"answer": "b"}]}])
    with pytest.raises(InputError, match="exactly one output with provenance, got 0"):
        score_kilt_files(gold, predictions, retrieval_only=True)


def test_retrieval_only_accepts_answerless_files_and_an_answer_in_its_own_output(tmp_path):
    gold = write_lines(tmp_path / "gold.jsonl", [{"id": 1, "input": "q", "output": [{"provenance": [
        {"wikipedia_id": 5}]}]}])
    predictions = write_lines(tmp_path / "pred.jsonl", [{"id": 1, "output": [{"answer": "a"}, {"provenance": [
        {"wikipedia_id": 5}]}]}])
    result = score_kilt_files(gold, predictions, retrieval_only=True, ks=[1])
    assert list(result) == ["eval_retrieval", "settings", "counts"]
    assert result["eval_retrieval"]["precision@1"] == 1.0


@pytest.mark.parametrize("option, value, message", [
    ("--ks", "0,5", "must be >= 1, got 0"),
    ("--ks", "5,x", "expected an integer, got 'x'"),
    ("--ks", "1,5,5", "cut-off '5' given twice"),
    ("--rank-keys", "wikipedia_id,", "a rank key name is empty"),
    ("--rank-keys", "wikipedia_id,wikipedia_id", "rank key 'wikipedia_id' given twice"),
])
def test_a_bad_cut_off_or_rank_key_is_an_argparse_error(option, value, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        run_score_kilt(["--gold", "g", "--predictions", "p", option, value], capsys)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_command_prints_one_json_object_and_warnings_on_stderr(tmp_path, capsys):
    gold = write_lines(tmp_path / "gold.jsonl", [GOOD_GOLD])
    predictions = write_lines(tmp_path / "pred.jsonl", [{"id": 1, "output": [{"answer": ""}]}])
    code, out, err = run_score_kilt(["--gold", str(gold), "--predictions", str(predictions), "--ks", "1"], capsys)
    result = json.loads(out)
    assert code == 0 and result["downstream"]["em"] == 0.0 and result["eval_retrieval"]["Rprec"] == 0.0
    assert err.splitlines() == [
        f"warning: {predictions}: 1 predictions with an empty answer, scored 0 on every metric (they count in the "
        f"mean) (counted as 'empty_answers')",
        f"warning: {predictions}: 1 predictions without a provenance list, scored as retrieving nothing (counted as "
        f"'predictions_without_provenance')"]
