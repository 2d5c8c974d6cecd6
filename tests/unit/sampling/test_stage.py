"""The sampling rule functions called directly with paths, as `python -m evidence_ledger call` does."""
import hashlib

from evidence_ledger.sampling.stage import build_families, sample_claims
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.ingest import CLAIMS
from evidence_ledger.tables.sampling import FAMILIES


def _claims(ids, texts=None):
    texts = texts or [f"claim number {cid}" for cid in ids]
    return CLAIMS.from_rows([
        {"dataset": "feverous", "claim_id": cid, "claim": text, "label": "SUPPORTS" if i % 2 else "REFUTES",
         "evidence_groups": [], "gold_abstracts": [], "cited_doc_ids": [], "source_file": "claims.jsonl",
         "source_line": i + 1, "unresolved_ids": None}
        for i, (cid, text) in enumerate(zip(ids, texts))])


def test_sample_claims_writes_the_hash_sample_and_its_summary(tmp_path):
    ids = [str(i) for i in range(12)]
    write_table(_claims(ids), tmp_path / "claims.parquet", CLAIMS)
    sample_claims(claims=str(tmp_path / "claims.parquet"), sample=str(tmp_path / "sample.parquet"),
                  summary=str(tmp_path / "summary.tsv"), method="hash", salt="s", n=4)
    chosen = set(sorted(ids, key=lambda c: hashlib.sha256(f"s:{c}".encode()).hexdigest())[:4])
    sample = read_table(tmp_path / "sample.parquet", CLAIMS)
    assert sample.column("claim_id").to_pylist() == [c for c in ids if c in chosen]
    lines = (tmp_path / "summary.tsv").read_text().splitlines()
    assert lines[0] == "key\tvalue"
    assert "selected\t4" in lines and "requested\t4" in lines and "all_selected\tfalse" in lines


def test_sample_claims_excludes_reserved_families(tmp_path):
    ids = ["1", "2", "3", "4"]
    write_table(_claims(ids), tmp_path / "claims.parquet", CLAIMS)
    fam = FAMILIES.from_rows([{"dataset": "feverous", "claim_id": c, "family_id": f}
                              for c, f in [("1", "1"), ("2", "1"), ("3", "3"), ("4", "4")]])
    write_table(fam, tmp_path / "families.parquet", FAMILIES)
    (tmp_path / "reserved.txt").write_text("2\n")
    sample_claims(claims=str(tmp_path / "claims.parquet"), families=str(tmp_path / "families.parquet"),
                  reserved=str(tmp_path / "reserved.txt"), sample=str(tmp_path / "sample.parquet"),
                  summary=str(tmp_path / "summary.tsv"), method="all", salt="", n=None)
    assert read_table(tmp_path / "sample.parquet", CLAIMS).column("claim_id").to_pylist() == ["3", "4"]
    assert "excluded_by_reserved_families\t2" in (tmp_path / "summary.tsv").read_text().splitlines()


def test_build_families_links_exact_duplicates_and_writes_the_summary(tmp_path):
    write_table(_claims(["1", "2", "3"], ["Paris is in France.", "paris is in france", "Rome is a city."]),
                tmp_path / "claims.parquet", CLAIMS)
    build_families(claims=[str(tmp_path / "claims.parquet")], families=str(tmp_path / "families.parquet"),
                   links=str(tmp_path / "links.parquet"), summary=str(tmp_path / "summary.tsv"),
                   dataset="feverous", negation_tokens=["not"], top_k=2, threshold=0.8)
    fam = read_table(tmp_path / "families.parquet", FAMILIES).to_pylist()
    assert {r["claim_id"]: r["family_id"] for r in fam} == {"1": "1", "2": "1", "3": "3"}
    summary = (tmp_path / "summary.tsv").read_text().splitlines()
    assert summary[:3] == ["kind\tkey\tcount", "claims\tall\t3", "families\tall\t2"]
    assert "family_size\t2\t1" in summary and "links\texact_match\t1" in summary
