"""NQ-CC / TQA-CC reader-output records."""
from pathlib import Path

import pytest

from evidence_ledger.datasets.conflict_qa import read_conflict_qa
from evidence_ledger.errors import InputError
from support.paths import FIXTURES

FIX = FIXTURES / "ingest" / "conflict_qa"


def test_question_id_is_the_given_id_or_the_line_number():
    rows = read_conflict_qa(FIX / "nqcc.jsonl", "nqcc").to_pylist()
    assert [r["question_id"] for r in rows] == ["1", "q-2"]
    assert rows[0]["answers"] == ["Ada Wren"]
    assert rows[0]["responses"] == ["Ada Wren", "Tom Reed"]
    assert rows[1]["generated_passages"] == [] and rows[1]["source_line"] == 2
    assert rows[0]["generated_answer"] is None


def test_reader_input_items_without_response_keep_their_context_answers(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"question": "q", "answer": ["1423"], "generated_passage": ["g"], "retrieved_passage": ["r"], '
                    '"generated_answer": "1394", "retrieved_answer": "1423"}\n')
    row = read_conflict_qa(path, "tqacc").to_pylist()[0]
    assert (row["responses"], row["generated_answer"], row["retrieved_answer"]) == ([], "1394", "1423")
    assert row["ctxs"] is None


def test_the_order_the_official_reader_recorded_is_kept(tmp_path):
    path = tmp_path / "hybrid.jsonl"
    path.write_text('{"question": "q", "answer": ["1423"], "generated_passage": ["g"], "retrieved_passage": ["r"], '
                    '"response": ["1423"], "ctxs": ["r", "g"]}\n')
    assert read_conflict_qa(path, "nqcc").to_pylist()[0]["ctxs"] == ["r", "g"]


@pytest.mark.parametrize("text, pattern", [
    ('{"question": "q", "answer": ["a"], "generated_passage": []}\n',
     r"nq\.jsonl:1: field 'retrieved_passage': missing field"),
    ('{"question": "q", "answer": ["a"], "generated_passage": [], "retrieved_passage": [], "response": [1]}\n',
     r"nq\.jsonl:1: field 'response': expected a list of strings"),
    ('{"question": "q", "answer": "a", "generated_passage": [], "retrieved_passage": [], "response": []}\n',
     r"nq\.jsonl:1: field 'answer': expected list"),
    ('{"question": "q", "answer": [], "generated_passage": [], "retrieved_passage": [], "response": []}\n',
     r"nq\.jsonl:1: field 'answer': empty gold answer list"),
    ('not json\n', r"nq\.jsonl:1: field '<json>'"),
    ('{"question": "q", "answer": ["a"], "generated_passage": [], "retrieved_passage": [], "ctxs": [{"text": "r"}]}\n',
     r"nq\.jsonl:1: field 'ctxs': expected a list of strings"),
])
def test_bad_records_raise_input_error(tmp_path, text, pattern):
    path = tmp_path / "nq.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match=pattern):
        read_conflict_qa(path, "nqcc")
