"""Table schemas: write/read round trip, refusal of mismatched files, the docs catalogue."""
import pyarrow as pa
import pytest

from evidence_ledger.tables import SchemaMismatch, TableSchema, read_table, write_table
from evidence_ledger.tables.catalog import all_schemas, render_markdown
from evidence_ledger.tables.ingest import CLAIMS, UNITS

from support.paths import REPO_ROOT

TOY = TableSchema("toy", 2, pa.schema([("a", pa.string()), ("b", pa.int64())]), doc="toy")


def test_round_trip_keeps_rows_and_stamps_name_and_version(tmp_path):
    path = write_table(TOY.from_rows([{"a": "x", "b": 1}, {"a": "y", "b": 2}]), tmp_path / "t.parquet", TOY)
    table = read_table(path, TOY)
    assert table.to_pylist() == [{"a": "x", "b": 1}, {"a": "y", "b": 2}]
    assert table.schema.metadata[b"evidence_ledger.version"] == b"2"


def test_reader_refuses_other_table(tmp_path):
    path = write_table(TOY.from_rows([{"a": "x", "b": 1}]), tmp_path / "t.parquet", TOY)
    with pytest.raises(SchemaMismatch, match="holds table 'toy', expected 'units'"):
        read_table(path, UNITS)


def test_reader_refuses_old_version(tmp_path):
    old = TableSchema("toy", 1, TOY.schema)
    path = write_table(old.from_rows([{"a": "x", "b": 1}]), tmp_path / "t.parquet", old)
    with pytest.raises(SchemaMismatch, match="schema version 1, this code reads version 2"):
        read_table(path, TOY)


def test_row_with_unknown_column_is_refused():
    with pytest.raises(SchemaMismatch, match=r"unknown columns \['c'\]"):
        TOY.from_rows([{"a": "x", "b": 1, "c": 3}])


def test_writes_are_byte_identical(tmp_path):
    rows = [{"a": str(i), "b": i} for i in range(100)]
    first = write_table(TOY.from_rows(rows), tmp_path / "1.parquet", TOY).read_bytes()
    second = write_table(TOY.from_rows(rows), tmp_path / "2.parquet", TOY).read_bytes()
    assert first == second


def test_catalogue_has_unique_names_and_central_tables():
    names = [schema.name for schema in all_schemas()]
    assert len(names) == len(set(names))
    assert {"claims", "units", "evidence", "parsed_answers", "answer_indicators", "evidence_indicators"} <= set(names)


def test_schema_docs_are_current():
    assert (REPO_ROOT / "docs" / "SCHEMAS.md").read_text() == render_markdown(), (
        "docs/SCHEMAS.md is stale: python -m evidence_ledger.tables.catalog > docs/SCHEMAS.md"
    )


def workflow_rule_names() -> set[str]:
    """The ``rule NAME:`` of every workflow file, plus ``ingest_<dataset>`` (the rule each
    registered benchmark gets from one loop in ingest.smk)."""
    import re

    names = {"ingest_<dataset>"}
    for smk in (REPO_ROOT / "workflow" / "rules").glob("*.smk"):
        names |= set(re.findall(r"^rule (\w+):", smk.read_text(), re.M))
    return names


def test_every_table_names_the_workflow_rules_that_write_it():
    rules = workflow_rule_names()
    for schema in all_schemas():
        assert schema.written_by, f"table {schema.name}: written_by names no rule"
        assert set(schema.written_by) <= rules, f"table {schema.name}: {set(schema.written_by) - rules} are not rules"
