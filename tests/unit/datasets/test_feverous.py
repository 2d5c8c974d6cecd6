"""FEVEROUS readers: claims jsonl with the header line, and the SQLite wiki."""
import json
import sqlite3
from pathlib import Path

import pytest

from evidence_ledger.datasets.feverous import read_id_list
from support.in_memory_release import ingest_feverous, read_feverous_claims, read_feverous_wiki
from evidence_ledger.errors import InputError
from support.paths import FIXTURES

FIX = FIXTURES / "ingest" / "feverous"


def build_db(path: Path, pages) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE wiki (id TEXT PRIMARY KEY, data TEXT)")
    con.executemany("INSERT INTO wiki VALUES (?, ?)", [(p["id"], json.dumps(p["data"])) for p in pages])
    con.commit()
    con.close()
    return path


@pytest.fixture
def wiki_db(tmp_path):
    return build_db(tmp_path / "feverous_wikiv1.db", json.loads((FIX / "pages.json").read_text()))


def test_header_line_is_skipped_and_evidence_sets_are_content_lists():
    table = read_feverous_claims(FIX / "dev.jsonl")
    rows = {r["claim_id"]: r for r in table.to_pylist()}
    assert list(rows) == ["7", "8", "9"]
    assert rows["7"]["source_line"] == 2
    assert rows["7"]["evidence_groups"] == [["Brannock Hall_sentence_0", "Brannock Hall_cell_0_1_1"]]
    assert rows["8"]["evidence_groups"] == [["Brannock Hall_item_0_1"]]  # duplicate set kept once
    assert rows["9"]["label"] == "NOT ENOUGH INFO"
    assert rows["9"]["evidence_groups"] == [["Brannock Hall_section_1", "Brannock Hall_table_caption_0"]]


def test_wiki_units_cover_every_element_kind_in_document_order(wiki_db):
    units, docs = read_feverous_wiki(wiki_db)
    hall = [r for r in units.to_pylist() if r["doc_id"] == "Brannock Hall"]
    assert [(r["unit_id"].removeprefix("Brannock Hall_"), r["kind"]) for r in hall] == [
        ("title", "title"), ("sentence_0", "sentence"), ("table_caption_0", "table_caption"),
        ("header_cell_0_0_0", "header_cell"), ("header_cell_0_1_0", "header_cell"), ("cell_0_1_1", "cell"),
        ("header_cell_0_2_0", "header_cell"), ("cell_0_2_1", "cell"), ("section_1", "section"),
        ("sentence_1", "sentence"), ("item_0_0", "item"), ("item_0_1", "item")]
    assert [r["position"] for r in hall] == list(range(12))
    assert docs.column("doc_id").to_pylist() == ["Ada Wren", "Brannock Hall"]


def test_cell_context_names_page_and_its_header_cells_and_links_are_stripped(wiki_db):
    units, _ = read_feverous_wiki(wiki_db)
    by_id = {r["unit_id"]: r for r in units.to_pylist()}
    cell = by_id["Brannock Hall_cell_0_2_1"]
    assert cell["text"] == "Ada Wren"
    # the row header to its left; the spanning title header above covers column 0 only (spans not expanded)
    assert cell["context"] == "Brannock Hall | Architect"
    assert by_id["Brannock Hall_cell_0_1_1"]["context"] == "Brannock Hall | Built"
    assert by_id["Brannock Hall_sentence_0"]["text"] == "Brannock Hall is a country house in Oldmere."
    assert by_id["Brannock Hall_sentence_1"]["context"] == "Brannock Hall | Grounds"
    assert by_id["Brannock Hall_item_0_1"]["context"] == "Brannock Hall | Grounds"


def test_gold_ids_resolve_against_the_sqlite_wiki(wiki_db):
    claims, units, _ = ingest_feverous({"dev": FIX / "dev.jsonl"}, wiki_db)
    assert claims["dev"].column("unresolved_ids").to_pylist() == [[], [], []]


def test_unknown_gold_id_is_an_error_or_counted(tmp_path, wiki_db):
    path = tmp_path / "dev.jsonl"
    path.write_text('{"id": 1, "label": "SUPPORTS", "claim": "c", "evidence": [{"content": ["Nowhere_sentence_0"], "context": {}}]}\n')
    units, _ = read_feverous_wiki(wiki_db)
    ids = set(units.column("unit_id").to_pylist())
    with pytest.raises(InputError, match=r"dev\.jsonl:1: field 'evidence': gold evidence id 'Nowhere_sentence_0'"):
        read_feverous_claims(path, ids)
    counted = read_feverous_claims(path, ids, on_unresolved="count")
    assert counted.column("unresolved_ids").to_pylist() == [["Nowhere_sentence_0"]]


@pytest.mark.parametrize("text, pattern", [
    ('{"id": 1, "label": "SUPPORTS", "claim": "c", "evidence": [{"content": ["P_sentence_0"]}]}\n{oops\n',
     r"dev\.jsonl:2: field '<json>'"),
    ('{"id": 1, "label": "REFUTED", "claim": "c", "evidence": [{"content": ["P_sentence_0"]}]}\n',
     r"dev\.jsonl:1: field 'label': unknown label 'REFUTED'"),
    ('{"id": 1, "label": "SUPPORTS", "claim": "c"}\n', r"dev\.jsonl:1: field 'evidence': missing field"),
    ('{"id": 1, "label": "SUPPORTS", "claim": "c", "evidence": [{"content": []}]}\n',
     r"dev\.jsonl:1: field 'evidence': set 0: 'content' must be a non-empty list"),
    ('{"id": 1, "label": "SUPPORTS", "claim": "c", "evidence": [{"content": ["P_sentence_0"]}]}\n'
     '{"id": "", "label": "", "claim": "", "evidence": []}\n', r"dev\.jsonl:2: field 'id': empty claim id"),
])
def test_bad_claim_records_raise_input_error(tmp_path, text, pattern):
    path = tmp_path / "dev.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match=pattern):
        read_feverous_claims(path)


def test_wiki_page_with_malformed_json_or_unknown_element_is_an_error(tmp_path):
    db = tmp_path / "bad.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE wiki (id TEXT, data TEXT)")
    con.execute("INSERT INTO wiki VALUES ('P', '{not json')")
    con.commit()
    con.close()
    with pytest.raises(InputError, match=r"bad\.db: row 1: field 'data': page 'P': malformed JSON"):
        read_feverous_wiki(db)
    db2 = build_db(tmp_path / "bad2.db", [{"id": "Q", "data": {"title": "Q", "order": ["figure_0"], "figure_0": "x"}}])
    with pytest.raises(InputError, match=r"bad2\.db: row 1: field 'data.order': page 'Q': unknown element key 'figure_0'"):
        read_feverous_wiki(db2)


def test_reserved_id_list_ignores_comments_and_repeats(tmp_path):
    path = tmp_path / "reserved_ids.txt"
    path.write_text("# reserved\n12\n\n7  # inspected\n12\n")
    assert read_id_list(path) == ["12", "7"]
