"""A KILT prediction file is read as a stream: each line validated and paired with its gold
item by id as it is read; what needs the whole file (a gold id without a prediction, the count
of ids not in the gold) comes once it has been read through."""
import json
import warnings

import pytest

from evidence_ledger.errors import InputError
from evidence_ledger.scoring.kilt_files import PairedPredictions, read_kilt_gold


def write_lines(path, lines):
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def gold_and_guess(tmp_path, guesses, ids=(1, 2)):
    gold_path = write_lines(tmp_path / "gold.jsonl", [{"id": i, "output": [{"answer": "a"}]} for i in ids])
    return read_kilt_gold(gold_path), gold_path, write_lines(tmp_path / "pred.jsonl", guesses)


def guess(item_id, answer="a"):
    return {"id": item_id, "output": [{"answer": answer, "provenance": [{"wikipedia_id": item_id}]}]}


def test_each_line_is_paired_before_the_next_is_read(tmp_path):
    """A bad second line is found only once the first line's pairing has been taken."""
    gold, gold_path, predictions = gold_and_guess(tmp_path, [guess(2, "b"), "{not json"])
    lines = iter(PairedPredictions(gold, gold_path, predictions))
    position, output = next(lines)
    assert (position, output["answer"]) == (1, "b")
    with pytest.raises(InputError) as error:
        next(lines)
    assert (error.value.line, error.value.field) == (2, "<json>")


def test_a_bad_line_is_reported_before_a_gold_id_without_prediction(tmp_path):
    gold, gold_path, predictions = gold_and_guess(tmp_path, [guess(1), {"id": 3}])
    with pytest.raises(InputError) as error:
        list(PairedPredictions(gold, gold_path, predictions))
    assert (error.value.path, error.value.line, error.value.field) == (str(predictions), 2, "output")


def test_a_gold_id_without_prediction_is_an_error_once_the_file_is_read(tmp_path):
    gold, gold_path, predictions = gold_and_guess(tmp_path, [guess(2)])
    lines = iter(PairedPredictions(gold, gold_path, predictions))
    assert next(lines)[0] == 1
    with pytest.raises(InputError, match="id '1' has no prediction in"):
        next(lines)


def test_ids_not_in_the_gold_are_counted_and_warned_once_the_file_is_read(tmp_path):
    gold, gold_path, predictions = gold_and_guess(tmp_path, [guess(9), guess(1), guess(2)])
    stream = PairedPredictions(gold, gold_path, predictions)
    with pytest.warns(UserWarning, match="1 prediction ids .* are not in the gold file"):
        assert [position for position, _ in stream] == [0, 1]
    assert stream.extra == 1


def test_a_provenance_entry_that_is_not_an_object_is_refused(tmp_path):
    bad = {"id": 1, "output": [{"answer": "a", "provenance": [{"wikipedia_id": 1, "text": 5}, "page 2"]}]}
    gold, gold_path, predictions = gold_and_guess(tmp_path, [bad, guess(2)])
    with warnings.catch_warnings(), pytest.raises(InputError, match="expected a list of objects") as error:
        list(PairedPredictions(gold, gold_path, predictions))
    assert (error.value.line, error.value.field) == (1, "provenance")
