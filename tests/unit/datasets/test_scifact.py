"""SciFact readers: claims and corpus, fixtures and the real claims_dev.jsonl."""
from pathlib import Path

import pytest

from support.paths import shared_file, FIXTURES
from evidence_ledger.datasets.scifact import ingest_scifact, read_scifact_claims, read_scifact_corpus
from evidence_ledger.errors import InputError

FIX = FIXTURES / "ingest" / "scifact"


def test_rationale_sets_become_unit_id_groups_and_abstracts_keep_their_labels():
    rows = {r["claim_id"]: r for r in read_scifact_claims(FIX / "claims.jsonl").to_pylist()}
    assert rows["1"]["evidence_groups"] == [["11:0", "11:2"], ["11:1"], ["12:0"]]
    assert rows["1"]["gold_abstracts"] == [{"doc_id": "11", "label": "SUPPORT"}, {"doc_id": "12", "label": "CONTRADICT"}]
    assert rows["1"]["label"] == "SUPPORT"
    assert rows["1"]["cited_doc_ids"] == ["11", "12"]


def test_claim_without_evidence_is_noinfo_with_no_gold_abstract():
    rows = {r["claim_id"]: r for r in read_scifact_claims(FIX / "claims.jsonl").to_pylist()}
    assert rows["3"]["label"] == "NOINFO"
    assert rows["3"]["gold_abstracts"] == [] and rows["3"]["evidence_groups"] == []
    assert rows["3"]["cited_doc_ids"] == ["13"]


def test_corpus_units_are_doc_sentence_ids_with_title_context():
    units, docs = read_scifact_corpus(FIX / "corpus.jsonl")
    assert units.column("unit_id").to_pylist() == ["11:0", "11:1", "11:2", "12:0", "12:1", "13:0"]
    assert units.column("context").to_pylist()[3] == "Drug X review"
    assert docs.column("text").to_pylist()[1] == "No effect of drug X was seen. Pressure rose in some patients."


def test_rationale_sentence_outside_the_abstract_is_an_error_or_counted(tmp_path):
    path = tmp_path / "claims_dev.jsonl"
    path.write_text('{"id": 5, "claim": "c", "evidence": {"13": [{"sentences": [4], "label": "SUPPORT"}]}, "cited_doc_ids": [13]}\n')
    with pytest.raises(InputError, match=r"claims_dev\.jsonl:1: field 'evidence': gold evidence id '13:4'"):
        ingest_scifact({"dev": path}, FIX / "corpus.jsonl")
    claims, _, _ = ingest_scifact({"dev": path}, FIX / "corpus.jsonl", on_unresolved="count")
    assert claims["dev"].column("unresolved_ids").to_pylist() == [["13:4"]]


@pytest.mark.parametrize("text, pattern", [
    ('{"id": 5, "claim": "c", "evidence": {}, "cited_doc_ids": [1]\n', r"claims_dev\.jsonl:1: field '<json>'"),
    ('{"id": 5, "claim": "c", "evidence": {"1": [{"sentences": [0], "label": "REFUTE"}]}, "cited_doc_ids": [1]}\n',
     r"claims_dev\.jsonl:1: field 'evidence.label': unknown label 'REFUTE'"),
    ('{"id": 5, "claim": "c", "evidence": {}}\n', r"claims_dev\.jsonl:1: field 'cited_doc_ids': missing field"),
    ('{"id": 5, "claim": "c", "evidence": {"1": [{"sentences": [0], "label": "SUPPORT"}, {"sentences": [1], '
     '"label": "CONTRADICT"}]}, "cited_doc_ids": [1]}\n', r"field 'evidence.label': abstract 1: rationale sets disagree"),
])
def test_bad_claim_records_raise_input_error(tmp_path, text, pattern):
    path = tmp_path / "claims_dev.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match=pattern):
        read_scifact_claims(path)


def test_real_claims_dev_loads_300_claims_112_without_evidence():
    table = read_scifact_claims(shared_file("scifact", "claims_dev.jsonl"))
    assert table.num_rows == 300
    labels = table.column("label").to_pylist()
    assert labels.count("NOINFO") == 112
    gold = [a["label"] for abstracts in table.column("gold_abstracts").to_pylist() for a in abstracts]
    assert (len(gold), gold.count("SUPPORT"), gold.count("CONTRADICT")) == (209, 138, 71)
    assert all(u is None for u in table.column("unresolved_ids").to_pylist())  # no corpus here: not checked
