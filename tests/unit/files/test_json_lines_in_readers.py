"""Every JSON-lines reader names file and line for undecodable bytes and for
JSON nested too deeply (one reader, one error format)."""
import json

import pytest

from support.in_memory_release import read_fever_claims
from evidence_ledger.errors import InputError
from evidence_ledger.evidence.providers import read_submission
from evidence_ledger.scoring import fever

GOOD = {"id": 1, "label": "SUPPORTS", "predicted_label": "SUPPORTS", "predicted_evidence": [],
        "claim": "c", "verifiable": "VERIFIABLE", "evidence": [[[1, 2, "P", 0]]]}


def _readers():
    return [
        ("datasets", lambda p: read_fever_claims(p)),
        ("scoring", lambda p: fever.score_files(p, p)),
        ("providers", lambda p: read_submission(p, {"1"})),
    ]


@pytest.mark.parametrize("name, read", _readers())
def test_non_utf8_bytes_name_file_line_and_column(tmp_path, name, read):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b'\n{"id": 2, "claim": "caf\xe9"}\n')
    with pytest.raises(InputError, match=r"bad\.jsonl:2: field '<json>': not valid UTF-8 \(byte 0xe9 at column 24\)"):
        read(path)


@pytest.mark.parametrize("name, read", _readers())
def test_deeply_nested_json_is_an_input_error_not_a_recursion_error(tmp_path, name, read):
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + '{"id": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    with pytest.raises(InputError, match=r"deep\.jsonl:2: field '<json>': malformed JSON: nested too deeply"):
        read(path)
