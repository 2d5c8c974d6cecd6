"""Streaming ingest of the wikis (datasets.corpus_tables via fever.write_fever_release and
feverous.write_feverous_release): the same unit rows as a straightforward reader, memory that
does not grow with the corpus, and bad input that fails naming file and line (or database row)
with no table left behind."""
import importlib.util
import json
import sqlite3
import tracemalloc

import pyarrow.parquet as pq
import pytest

from evidence_ledger.datasets.fever import page_title, parse_lines, write_fever_release
from evidence_ledger.datasets.feverous import page_units, write_feverous_release
from evidence_ledger.errors import InputError
from evidence_ledger.files.jsonl import iter_jsonl
from evidence_ledger.tables import read_table
from evidence_ledger.tables.ingest import UNITS
from support.paths import REPO_ROOT

_spec = importlib.util.spec_from_file_location("synthetic_wiki", REPO_ROOT / "benchmarks" / "synthetic_wiki.py")
synthetic_wiki = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic_wiki)


def reference_fever_units(wiki_dir) -> list[dict]:
    """The straightforward reader: every page of every file as unit dicts, sorted by (doc_id,
    position)."""
    rows = []
    for path in sorted(wiki_dir.glob("*.jsonl")):
        for line, rec in iter_jsonl(path):
            if rec["id"] == "":
                continue
            title = page_title(rec["id"])
            for position, (number, sentence) in enumerate(parse_lines(rec["lines"], path, line)):
                rows.append({"dataset": "fever", "unit_id": f"{rec['id']}::{number}", "doc_id": rec["id"],
                             "kind": "sentence", "position": position, "text": sentence, "context": title})
    return sorted(rows, key=lambda r: (r["doc_id"], r["position"]))


def _ingest_fever(release, out, on_unresolved="error"):
    return write_fever_release({"dev": release["claims"]}, release["wiki"], on_unresolved,
                               out / "units.parquet", out / "documents.parquet")


def _traced_peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_fever_ingest_of_10k_and_40k_pages_matches_the_reference_reader_in_flat_memory(tmp_path):
    """Synthetic FEVER releases of 10,000 and 40,000 pages (300 claims each, all gold ids
    resolve): the written UNITS rows equal the reference reader's, row groups carry statistics,
    and the peak traced (Python) memory of the 40k ingest is at most 1.5x that of the 10k one
    (a reader holding every unit would need ~4x)."""
    peaks = {}
    for pages in (10_000, 40_000):
        release = synthetic_wiki.write_fever_release(tmp_path / f"rel{pages}", pages, n_claims=300, seed=pages)
        out = tmp_path / f"out{pages}"
        peaks[pages] = _traced_peak(lambda: _ingest_fever(release, out))
        units = read_table(out / "units.parquet", UNITS)
        assert units.to_pylist() == reference_fever_units(tmp_path / f"rel{pages}" / "wiki-pages")
        assert units.num_rows == release["units"]
        meta = pq.ParquetFile(out / "units.parquet").metadata
        assert meta.num_row_groups >= 2 and meta.row_group(0).column(2).statistics.has_min_max
    assert peaks[40_000] <= 1.5 * peaks[10_000], peaks


def test_feverous_ingest_matches_the_in_memory_reader_in_flat_memory(tmp_path):
    """Synthetic FEVEROUS wikis of 1,000 and 4,000 pages (~17 units a page): streamed UNITS equal
    the rows of the straightforward per-page reader (``page_units`` of every row, sorted by
    page id), and the traced peak of the larger is at most 1.5x the smaller's."""
    peaks = {}
    for pages in (1_000, 4_000):
        release = synthetic_wiki.write_feverous_release(tmp_path / f"rel{pages}", pages, n_claims=200, seed=pages)
        out = tmp_path / f"out{pages}"
        peaks[pages] = _traced_peak(lambda: write_feverous_release(
            {"dev": release["claims"]}, release["wiki"], "error", out / "units.parquet", out / "documents.parquet"))
        con = sqlite3.connect(release["wiki"])
        expected = []
        for rowid, page, data in sorted(con.execute("SELECT rowid, id, data FROM wiki"), key=lambda r: r[1]):
            p = page_units(page, json.loads(data), ("db", rowid))
            expected += [{"dataset": "feverous", "unit_id": u, "doc_id": page, "kind": k, "position": i, "text": t,
                          "context": c} for i, (u, k, t, c) in enumerate(zip(p.unit_ids, p.kinds, p.texts, p.contexts))]
        con.close()
        assert read_table(out / "units.parquet", UNITS).to_pylist() == expected
    assert peaks[4_000] <= 1.5 * peaks[1_000], peaks


def _left_behind(out) -> list[str]:
    return sorted(p.name for p in out.iterdir()) if out.exists() else []


@pytest.mark.parametrize("second_file, pattern", [
    ('{"id": "B", "text": "t", "lines": "zero\\tsentence"}\n', r"wiki-002\.jsonl:1: field 'lines'"),
    ('\n{"id": "B", "lines": "0\\tfine"}\n{"id": "C", "lines": \n', r"wiki-002\.jsonl:3: field '<json>': malformed JSON"),
    ('{"id": "B", "lines": "0\\tfine"}\n{"id": "A", "lines": "0\\tagain"}\n',
     r"wiki-002\.jsonl:2: field 'id': duplicate page id 'A' \(first at .*wiki-001\.jsonl:1\)"),
])
def test_bad_fever_wiki_fails_naming_file_and_line_and_leaves_no_table(tmp_path, second_file, pattern):
    wiki = tmp_path / "wiki-pages"
    wiki.mkdir()
    (wiki / "wiki-001.jsonl").write_text('{"id": "A", "lines": "0\\tA sentence ."}\n', encoding="utf-8")
    (wiki / "wiki-002.jsonl").write_text(second_file, encoding="utf-8")
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": 1, "label": "SUPPORTS", "claim": "c", "evidence": [[[1, 1, "A", 0]]]}) + "\n")
    out = tmp_path / "out"
    with pytest.raises(InputError, match=pattern):
        write_fever_release({"dev": claims}, wiki, "error", out / "units.parquet", out / "documents.parquet")
    assert _left_behind(out) == []


def test_unresolved_gold_id_fails_after_streaming_and_leaves_no_table(tmp_path):
    wiki = tmp_path / "wiki-pages"
    wiki.mkdir()
    (wiki / "wiki-001.jsonl").write_text('{"id": "A", "lines": "0\\tA sentence ."}\n', encoding="utf-8")
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": 1, "label": "SUPPORTS", "claim": "c", "evidence": [[[1, 1, "A", 3]]]}) + "\n")
    out = tmp_path / "out"
    with pytest.raises(InputError, match=r"claims\.jsonl:1: field 'evidence': gold evidence id 'A::3'"):
        write_fever_release({"dev": claims}, wiki, "error", out / "units.parquet", out / "documents.parquet")
    assert _left_behind(out) == []
    claims_tables = write_fever_release({"dev": claims}, wiki, "count", out / "units.parquet", out / "documents.parquet")
    assert claims_tables["dev"].column("unresolved_ids").to_pylist() == [["A::3"]]
    assert _left_behind(out) == ["documents.parquet", "units.parquet"]


@pytest.mark.parametrize("rows, pattern", [
    ([("P", '{"title": "P", "order": []}'), ("Q", "{not json")], r"bad\.db: row 2: field 'data': page 'Q': malformed JSON"),
    ([("P", '{"title": "P", "order": []}'), ("P", '{"title": "P", "order": []}')],
     r"bad\.db: row [12]: field 'id': duplicate page id 'P' \(first at row [12]\)"),
])
def test_bad_feverous_wiki_fails_naming_the_row_and_leaves_no_table(tmp_path, rows, pattern):
    db = tmp_path / "bad.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE wiki (id TEXT, data TEXT)")
    con.executemany("INSERT INTO wiki VALUES (?, ?)", rows)
    con.commit()
    con.close()
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": 1, "label": "SUPPORTS", "claim": "c",
                                  "evidence": [{"content": ["P_title"], "context": {}}]}) + "\n")
    out = tmp_path / "out"
    with pytest.raises(InputError, match=pattern):
        write_feverous_release({"dev": claims}, db, "error", out / "units.parquet", out / "documents.parquet")
    assert _left_behind(out) == []
