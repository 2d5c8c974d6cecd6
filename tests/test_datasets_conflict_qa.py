"""NQ-CC / TQA-CC reader-output records."""
from pathlib import Path

import pytest

from evidence_ledger.datasets.conflict_qa import read_conflict_qa
from evidence_ledger.errors import InputError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "conflict_qa"


def test_question_id_is_the_given_id_or_the_line_number():
    rows = read_conflict_qa(FIX / "nqcc.jsonl", "nqcc").to_pylist()
    assert [r["question_id"] for r in rows] == ["1", "q-2"]
    assert rows[0]["answers"] == ["Ada Wren"]
    assert rows[0]["responses"] == ["Ada Wren", "Tom Reed"]
    assert rows[1]["generated_passages"] == [] and rows[1]["source_line"] == 2


@pytest.mark.parametrize("text, pattern", [
    ('{"question": "q", "answer": ["a"], "generated_passage": [], "retrieved_passage": []}\n',
     r"nq\.jsonl:1: field 'response': missing field"),
    ('{"question": "q", "answer": "a", "generated_passage": [], "retrieved_passage": [], "response": []}\n',
     r"nq\.jsonl:1: field 'answer': expected list"),
    ('{"question": "q", "answer": [], "generated_passage": [], "retrieved_passage": [], "response": []}\n',
     r"nq\.jsonl:1: field 'answer': empty gold answer list"),
    ('not json\n', r"nq\.jsonl:1: field '<json>'"),
])
def test_bad_records_raise_input_error(tmp_path, text, pattern):
    path = tmp_path / "nq.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match=pattern):
        read_conflict_qa(path, "nqcc")
