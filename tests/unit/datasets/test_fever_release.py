"""FEVER readers: claims jsonl and wiki-pages, on hand-written fixtures and the real paper_dev."""
from collections import Counter
from pathlib import Path

import pytest

from support.paths import shared_file, FIXTURES
from support.in_memory_release import ingest_fever, read_fever_claims, read_fever_wiki
from evidence_ledger.errors import InputError

FIX = FIXTURES / "ingest" / "fever"
OLDMERE = "Oldmere_-LRB-county-RRB-"


def _rows(table):
    return {r["claim_id"]: r for r in table.to_pylist()}


def test_evidence_groups_are_unit_ids_with_duplicate_groups_removed():
    rows = _rows(read_fever_claims(FIX / "claims.jsonl"))
    assert rows["101"]["evidence_groups"] == [["Tarn_Vale::0"], ["Tarn_Vale::1", f"{OLDMERE}::0"]]
    # the second annotation of 104 lists the same two sentences in the other order: one group
    assert rows["104"]["evidence_groups"] == [[f"{OLDMERE}::0", f"{OLDMERE}::2"]]


def test_nei_claim_has_no_evidence_groups_and_source_line_counts_blank_lines():
    rows = _rows(read_fever_claims(FIX / "claims.jsonl"))
    assert rows["103"]["label"] == "NOT ENOUGH INFO"
    assert rows["103"]["evidence_groups"] == []
    assert rows["103"]["source_line"] == 4
    assert list(rows) == ["101", "102", "103", "104"]


def test_claims_without_wiki_keep_gold_ids_unchecked():
    rows = _rows(read_fever_claims(FIX / "claims.jsonl"))
    assert all(r["unresolved_ids"] is None for r in rows.values())


def test_wiki_units_skip_empty_lines_and_the_empty_page():
    """Pages in doc_id order ("Oldmere_..." < "Tarn_Vale"), units in line order within a page."""
    units, docs = read_fever_wiki(FIX / "wiki-pages")
    assert units.column("unit_id").to_pylist() == [f"{OLDMERE}::0", f"{OLDMERE}::2", "Tarn_Vale::0", "Tarn_Vale::1"]
    assert units.column("position").to_pylist() == [0, 1, 0, 1]
    assert units.column("context").to_pylist()[0] == "Oldmere (county)"
    assert docs.column("doc_id").to_pylist() == [OLDMERE, "Tarn_Vale"]
    assert docs.column("text").to_pylist()[0] == "Oldmere is a county . Its seat is Tarn Vale ."


def test_gold_ids_resolve_against_the_wiki():
    claims, units, _docs = ingest_fever({"dev": FIX / "claims.jsonl"}, FIX / "wiki-pages")
    assert all(r["unresolved_ids"] == [] for r in claims["dev"].to_pylist())
    assert units.num_rows == 4


def _write(tmp_path, text):
    path = tmp_path / "claims.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = '{"id": 1, "verifiable": "VERIFIABLE", "label": "SUPPORTS", "claim": "c", "evidence": [[[1, 2, "Tarn_Vale", 0]]]}\n'


def test_unresolved_gold_id_is_an_error_naming_file_line_field(tmp_path):
    path = _write(tmp_path, GOOD + GOOD.replace('"id": 1', '"id": 2').replace('"Tarn_Vale", 0', '"Tarn_Vale", 7'))
    units, _ = read_fever_wiki(FIX / "wiki-pages")
    with pytest.raises(InputError, match=r"claims\.jsonl:2: field 'evidence': gold evidence id 'Tarn_Vale::7'"):
        read_fever_claims(path, set(units.column("unit_id").to_pylist()))


def test_unresolved_gold_id_is_counted_when_asked(tmp_path):
    path = _write(tmp_path, GOOD + GOOD.replace('"id": 1', '"id": 2').replace('"Tarn_Vale", 0', '"Tarn_Vale", 7'))
    units, _ = read_fever_wiki(FIX / "wiki-pages")
    table = read_fever_claims(path, set(units.column("unit_id").to_pylist()), on_unresolved="count")
    assert table.column("unresolved_ids").to_pylist() == [[], ["Tarn_Vale::7"]]
    assert table.column("evidence_groups").to_pylist()[1] == [["Tarn_Vale::7"]]


@pytest.mark.parametrize("text, pattern", [
    (GOOD + '{"id": 2, "label": "SUPPORTS", \n', r"claims\.jsonl:2: field '<json>': malformed JSON"),
    (GOOD.replace("SUPPORTS", "SUPPORTED"), r"claims\.jsonl:1: field 'label': unknown label 'SUPPORTED'"),
    (GOOD + GOOD.replace('"claim": "c", ', ""), r"claims\.jsonl:2: field 'claim': missing field"),
    (GOOD.replace('[1, 2, "Tarn_Vale", 0]', "[1, null, null, null]"),
     r"claims\.jsonl:1: field 'evidence': group 0: SUPPORTS claim has evidence item without page/line"),
    (GOOD + GOOD, r"claims\.jsonl:2: field 'id': duplicate claim id 1"),
])
def test_bad_claim_records_raise_input_error(tmp_path, text, pattern):
    with pytest.raises(InputError, match=pattern):
        read_fever_claims(_write(tmp_path, text))


def test_wiki_line_without_number_is_an_error(tmp_path):
    path = tmp_path / "wiki-001.jsonl"
    path.write_text('{"id": "P", "text": "t", "lines": "zero\\tsentence"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"wiki-001\.jsonl:1: field 'lines'"):
        read_fever_wiki(path)


def test_real_paper_dev_loads_9999_claims_3333_per_label():
    table = read_fever_claims(shared_file("fever", "paper_dev.jsonl"))
    assert table.num_rows == 9999
    assert Counter(table.column("label").to_pylist()) == {"SUPPORTS": 3333, "REFUTES": 3333, "NOT ENOUGH INFO": 3333}
    rows = _rows(table)
    # first REFUTES record of the file: four groups, one of them spanning two pages
    assert rows["111897"]["evidence_groups"] == [
        ["Telemundo::0"], ["Telemundo::1"], ["Telemundo::4", "Hispanic_and_Latino_Americans::0"], ["Telemundo::5"]]
    assert rows["91198"]["evidence_groups"] == []
