"""Filtered reads (tables.read_filtered, ingest_readers.read_units_table): exactly the rows of a
full read filtered with is_in, in file order, while reading only the row groups whose
statistics may hold a wanted value."""
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from evidence_ledger.datasets.corpus_tables import Page, write_corpus
from evidence_ledger.tables import read_table, row_groups_for, write_table
from evidence_ledger.tables.ingest import UNITS
from evidence_ledger.tables.ingest_readers import read_units, read_units_table


def _pages(n_pages=400):
    """Pages P0000.. in id order, 1-6 units each (FEVER-style ids ``page::line``)."""
    rng = np.random.default_rng(3)
    for k in range(n_pages):
        doc = f"P{k:04d}"
        n = int(rng.integers(1, 7))
        ids = [f"{doc}::{i}" for i in range(n)]
        yield Page(doc_id=doc, title=doc, text=" ".join(ids), unit_ids=ids, kinds="sentence",
                   texts=[f"s{i}" for i in range(n)], contexts=doc)


@pytest.fixture
def units_path(tmp_path):
    """UNITS written in batches of ~100 units, so the file has many row groups."""
    path = tmp_path / "units.parquet"
    write_corpus(_pages(), "t", path, tmp_path / "documents.parquet", batch_units=100)
    return path


def _expected(path, column, values, columns=None):
    full = read_table(path, UNITS)
    kept = full.filter(pc.is_in(full[column], value_set=pa.array(sorted(set(values)), pa.string())))
    return kept.select(columns or UNITS.columns).to_pylist()


@pytest.mark.parametrize("docs", [
    ["P0000"], ["P0399", "P0000", "P0200"], ["P0150", "nope", "P0151"], [], ["zzz"],
    [f"P{k:04d}" for k in range(0, 400, 7)],
])
def test_doc_filter_returns_the_rows_of_a_full_read_and_filter(units_path, docs):
    got = read_units_table(units_path, doc_ids=docs, columns=["unit_id", "doc_id", "position"])
    assert got.to_pylist() == _expected(units_path, "doc_id", docs, ["unit_id", "doc_id", "position"])


def test_unit_filter_and_both_filters_match_a_full_read(units_path):
    ids = ["P0003::0", "P0003::1", "P0390::0", "P0390::9", "absent"]
    assert read_units_table(units_path, unit_ids=ids).to_pylist() == _expected(units_path, "unit_id", ids)
    both = read_units(units_path, unit_ids=ids, doc_ids=["P0390"], columns=["unit_id", "text"])
    by_unit = _expected(units_path, "unit_id", ids)
    assert both.to_dict("records") == [{"unit_id": r["unit_id"], "text": r["text"]} for r in by_unit
                                       if r["doc_id"] == "P0390"]
    assert len(both) == 1  # P0390::0 (pages have at most 6 units: no P0390::9)
    assert list(both.columns) == ["unit_id", "text"]


def test_only_row_groups_that_may_hold_the_pages_are_read(units_path):
    """One page lies in one row group (or two, when a batch boundary splits it): of the file's
    many row groups, a one-page filter selects at most two."""
    meta = pq.ParquetFile(units_path).metadata
    assert meta.num_row_groups >= 10
    assert 1 <= len(row_groups_for(meta, "doc_id", ["P0200"])) <= 2
    assert row_groups_for(meta, "doc_id", ["zzz"]) == []


def test_file_without_statistics_is_read_whole_and_filtered_the_same(tmp_path, units_path):
    """A UNITS file written by write_table (no statistics, e.g. by an older ingest) gives the
    same rows: every row group is a candidate."""
    old = tmp_path / "old_units.parquet"
    write_table(read_table(units_path, UNITS), old, UNITS)
    meta = pq.ParquetFile(old).metadata
    assert row_groups_for(meta, "doc_id", ["P0200"]) == list(range(meta.num_row_groups))
    assert read_units_table(old, doc_ids=["P0200", "P0007"]).to_pylist() == \
        _expected(units_path, "doc_id", ["P0200", "P0007"])
