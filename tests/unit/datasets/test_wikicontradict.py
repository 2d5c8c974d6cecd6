"""WikiContradict reader: RAG-QA CSV (+ full JSON), fixture and the real CSV."""
from collections import Counter
from pathlib import Path

import pytest

from support.paths import shared_file, FIXTURES
from evidence_ledger.datasets.wikicontradict import read_wikicontradict
from evidence_ledger.errors import InputError

FIX = FIXTURES / "ingest" / "wikicontradict"


def test_csv_rows_keep_file_order_multiline_fields_and_first_line_numbers():
    rows = read_wikicontradict(FIX / "rag_qa.csv").to_pylist()
    assert [r["question_id"] for r in rows] == ["7", "3"]
    assert rows[0]["context2"] == "Later sources say 1824,\nafter a fire."
    assert [r["source_line"] for r in rows] == [2, 6]
    assert rows[1]["context2"] == 'The "architect" was Tom Reed.'


def test_contradiction_type_and_same_passage_are_normalised():
    rows = read_wikicontradict(FIX / "rag_qa.csv").to_pylist()
    assert [(r["contradict_type"], r["same_passage"]) for r in rows] == [("explicit", False), ("implicit", True)]
    assert rows[0]["passage1_standalone"] is None


def test_full_json_adds_standalone_passages_by_question_id():
    rows = read_wikicontradict(FIX / "rag_qa.csv", FIX / "full.json").to_pylist()
    assert rows[1]["passage2_standalone"] == "Tom Reed was the architect of Brannock Hall."
    assert rows[0]["passage1_standalone"] == "Brannock Hall was built in 1820."


def test_full_json_consistent_passages_come_from_the_configured_fields(tmp_path):
    import json

    data = json.loads((FIX / "full.json").read_text())
    data[0]["consistent_A"], data[0]["consistent_B"] = "Ada Wren designed it.", "Ada Wren was its architect."
    data[1]["consistent_A"] = 5
    path = tmp_path / "full.json"
    path.write_text(json.dumps(data[:1] + [{k: v for k, v in data[1].items() if k != "consistent_A"}]))
    rows = read_wikicontradict(FIX / "rag_qa.csv", path, consistent_fields=("consistent_A", "consistent_B")).to_pylist()
    by_id = {r["question_id"]: r for r in rows}
    assert (by_id["3"]["passage1_consistent"], by_id["3"]["passage2_consistent"]) == (
        "Ada Wren designed it.", "Ada Wren was its architect.")
    assert by_id["7"]["passage1_consistent"] is None  # the instance has no consistent passages
    assert read_wikicontradict(FIX / "rag_qa.csv", path).to_pylist()[1]["passage1_consistent"] is None
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"full.json:2: field 'consistent_A'"):
        read_wikicontradict(FIX / "rag_qa.csv", path, consistent_fields=("consistent_A", "consistent_B"))


def _variant(tmp_path, old, new):
    path = tmp_path / "rag.csv"
    path.write_text((FIX / "rag_qa.csv").read_text().replace(old, new, 1))
    return path


def test_unknown_contradiction_type_is_an_error(tmp_path):
    with pytest.raises(InputError, match=r"rag\.csv:6: field 'contradictType': unknown contradiction type 'Implicit'"):
        read_wikicontradict(_variant(tmp_path, "Implicit (reasoning required)", "Implicit"))


def test_missing_column_is_an_error(tmp_path):
    with pytest.raises(InputError, match=r"rag\.csv:1: field 'samepassage': missing column"):
        read_wikicontradict(_variant(tmp_path, "samepassage", "same_passage"))


def test_instance_missing_from_full_json_is_an_error(tmp_path):
    path = tmp_path / "full.json"
    path.write_text('[{"question_ID": 7, "paragraph_A_clean": "a", "paragraph_B_clean": "b"}]')
    with pytest.raises(InputError, match=r"full\.json: field 'question_ID': CSV instance 3 \(line 6\)"):
        read_wikicontradict(FIX / "rag_qa.csv", path)


def test_real_csv_loads_253_rows_161_explicit_92_implicit():
    table = read_wikicontradict(shared_file("wikicontradict", "WikiContradict_dataset_v1_rag_qa.csv"))
    assert table.num_rows == 253
    assert Counter(table.column("contradict_type").to_pylist()) == {"explicit": 161, "implicit": 92}
    assert sorted(int(q) for q in table.column("question_id").to_pylist()) == list(range(1, 254))
