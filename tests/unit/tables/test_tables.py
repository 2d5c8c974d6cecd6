"""Writes are atomic and never through a link (hidden temporaries of a killed write are removed
when the path is written next); a file that is not readable Parquet is one expected error naming
the file and the rule that writes its table."""
import os
from pathlib import Path

import pytest

from evidence_ledger.errors import ExpectedError
from evidence_ledger.tables import DamagedTable, read_filtered, read_table, write_table
from evidence_ledger.tables.ingest import DOCUMENTS
from evidence_ledger.tables.retrieval import POOLS

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


def test_write_table_never_writes_through_a_link_at_its_temporary_or_its_target(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours")
    out_dir = tmp_path / "results"
    out_dir.mkdir()
    out = out_dir / "documents.parquet"
    (out_dir / f".documents.parquet.tmp{os.getpid()}").symlink_to(outside)  # planted at this process's temporary
    out.symlink_to(outside)
    write_table(DOCUMENTS.from_rows([ROW]), out, DOCUMENTS)
    assert outside.read_text() == "not yours"
    assert not out.is_symlink() and read_table(out, DOCUMENTS).to_pylist() == [ROW]
    assert sorted(p.name for p in out_dir.iterdir()) == ["documents.parquet"]


def damaged_copies(tmp_path) -> dict[str, Path]:
    """A good POOLS file, and copies of it cut in half, emptied, overwritten with text, and with its
    pages overwritten (footer intact)."""
    good = write_table(POOLS.from_rows([{"dataset": "fever", "claim_id": str(i),
                                         "unit_ids": [f"Page {i}::{k}" for k in range(40)], "doc_ids": [""] * 40,
                                         "units_available": 40, "capped": False}
                                        for i in range(50)]), tmp_path / "good.parquet", POOLS)
    data = good.read_bytes()
    variants = {"truncated": data[:len(data) // 2], "empty": b"", "text": b"claim_id,unit_id\n1,P::1\n",
                "pages": data[:4] + b"\xff" * (len(data) // 2 - 4) + data[len(data) // 2:]}
    out = {}
    for name, content in variants.items():
        out[name] = tmp_path / name / "pools.parquet"
        out[name].parent.mkdir()
        out[name].write_bytes(content)
    return out


@pytest.mark.parametrize("damage", ["truncated", "empty", "text", "pages"])
@pytest.mark.parametrize("read", [read_table, lambda p, s: read_filtered(p, s, "claim_id", ["1"])],
                         ids=["read_table", "read_filtered"])
def test_a_damaged_table_file_is_one_error_naming_the_file_and_the_rule_that_writes_it(tmp_path, damage, read):
    path = damaged_copies(tmp_path)[damage]
    with pytest.raises(DamagedTable) as refused:
        read(path, POOLS)
    message = str(refused.value)
    assert message.startswith(f"{path}: not a readable Parquet file (")
    assert "It holds table pools, written by rule build_pools: delete the file and run the workflow again" in message
    assert "\n" not in message and isinstance(refused.value, ExpectedError)


def test_a_missing_table_file_stays_a_file_not_found_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_table(tmp_path / "absent.parquet", POOLS)
