"""Hidden temporaries of a killed atomic write are removed when the path is written next."""
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.ingest import DOCUMENTS

ROW = {"dataset": "fever", "doc_id": "P", "title": "P", "text": "t"}


def test_write_table_removes_temporaries_left_by_a_killed_write(tmp_path):
    out = tmp_path / "documents.parquet"
    killed = tmp_path / ".documents.parquet.tmp4242"      # what a SIGKILL between write and rename leaves
    killed.write_bytes(b"PAR1 truncated")
    other = tmp_path / ".units.parquet.tmp4242"           # another path's temporary is not touched
    other.write_bytes(b"x")
    write_table(DOCUMENTS.from_rows([ROW]), out, DOCUMENTS)
    assert not killed.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".units.parquet.tmp4242", "documents.parquet"]
    assert read_table(out, DOCUMENTS).to_pylist() == [ROW]
