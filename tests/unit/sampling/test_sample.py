"""Deterministic hash sampling and reserved-family exclusion."""
import hashlib

import pytest

from support.paths import shared_file
from support.in_memory_release import read_fever_claims
from evidence_ledger.tables.report_tsv import write_report_tsv
from evidence_ledger.sampling.sample import hash_rank_key, sample_claims, select_by_hash, summary_table
from evidence_ledger.tables import write_table
from evidence_ledger.tables.ingest import CLAIMS


def claims_table(ids, labels=None):
    labels = labels or ["SUPPORTS"] * len(ids)
    return CLAIMS.from_rows([
        {"dataset": "feverous", "claim_id": cid, "claim": f"claim {cid}", "label": lab, "evidence_groups": [],
         "gold_abstracts": [], "cited_doc_ids": [], "source_file": "f", "source_line": i + 1, "unresolved_ids": None}
        for i, (cid, lab) in enumerate(zip(ids, labels))])


def test_hash_key_is_sha256_of_salt_colon_id():
    assert hash_rank_key("s", "17") == hashlib.sha256(b"s:17").hexdigest()


def test_selection_takes_the_smallest_hash_keys():
    ids = [str(i) for i in range(50)]
    expected = sorted(ids, key=lambda c: hashlib.sha256(f"salt-a:{c}".encode()).hexdigest())[:5]
    assert select_by_hash(ids, "salt-a", 5) == expected
    assert select_by_hash(ids, "salt-b", 5) != expected


def test_sample_keeps_source_order_and_reports_label_counts():
    table = claims_table([str(i) for i in range(20)], ["SUPPORTS", "REFUTES"] * 10)
    sample, summary = sample_claims(table, "x", 6)
    chosen = set(select_by_hash([str(i) for i in range(20)], "x", 6))
    assert sample.column("claim_id").to_pylist() == [str(i) for i in range(20) if str(i) in chosen]
    assert summary["selected"] == 6 and summary["requested"] == 6 and summary["all_selected"] is False
    assert summary["label:SUPPORTS"] + summary["label:REFUTES"] == 6


def test_n_larger_than_population_selects_all_and_says_so():
    sample, summary = sample_claims(claims_table(["1", "2", "3"]), "x", 10)
    assert sample.num_rows == 3
    assert (summary["requested"], summary["selected"], summary["all_selected"]) == (10, 3, True)


def test_reserved_ids_exclude_their_whole_family():
    table = claims_table(["1", "2", "3", "4", "5"])
    families = {"1": "1", "2": "1", "3": "3", "4": "4", "5": "4", "70": "70"}
    sample, summary = sample_claims(table, "x", 100, families=families, reserved_ids=["2", "5", "99"])
    assert sample.column("claim_id").to_pylist() == ["3"]
    assert summary["excluded_by_reserved_families"] == 4
    assert summary["reserved_not_found"] == 1 and summary["reserved_ids"] == 3


def test_reserved_ids_without_families_are_refused():
    with pytest.raises(ValueError, match="families are needed"):
        sample_claims(claims_table(["1"]), "x", 1, reserved_ids=["1"])


def test_method_all_keeps_every_claim():
    sample, summary = sample_claims(claims_table(["3", "1", "2"]), "", None, method="all")
    assert sample.column("claim_id").to_pylist() == ["3", "1", "2"]
    assert summary["requested"] == -1 and summary["salt"] == ""


def test_rerun_writes_byte_identical_parquet(tmp_path):
    table = claims_table([str(i) for i in range(40)])
    a = write_table(sample_claims(table, "x", 7)[0], tmp_path / "a.parquet", CLAIMS).read_bytes()
    b = write_table(sample_claims(table, "x", 7)[0], tmp_path / "b.parquet", CLAIMS).read_bytes()
    assert a == b


def test_summary_is_a_key_value_report_tsv(tmp_path):
    write_report_tsv(summary_table({"dataset": "fever", "selected": 3, "all_selected": True}), tmp_path / "s.tsv")
    assert (tmp_path / "s.tsv").read_text() == "key\tvalue\ndataset\tfever\nselected\t3\nall_selected\ttrue\n"


def test_real_fever_sample_of_2000_is_the_2000_smallest_hashes():
    claims = read_fever_claims(shared_file("fever", "paper_dev.jsonl"))
    sample, summary = sample_claims(claims, "fever-2000", 2000)
    ids = claims.column("claim_id").to_pylist()
    keys = sorted(hashlib.sha256(f"fever-2000:{c}".encode()).hexdigest() for c in ids)
    chosen_keys = sorted(hashlib.sha256(f"fever-2000:{c}".encode()).hexdigest()
                         for c in sample.column("claim_id").to_pylist())
    assert summary["selected"] == 2000 and summary["population"] == 9999
    assert chosen_keys == keys[:2000]
