"""benchmarks/output_hashes.py: the fingerprint of a run's outputs and its comparison."""
import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("output_hashes", REPO / "benchmarks" / "output_hashes.py")
output_hashes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(output_hashes)


def test_fingerprint_covers_report_files_and_leaves_out_cache_and_provenance(tmp_path):
    for rel in ("a/x.parquet", "a/y.tsv", "b/z.json", "fig.png", "cache/generation/m/s.parquet",
                "report/provenance.parquet", "logs.txt", "index/data.npy"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(rel.encode())
    fp = output_hashes.output_fingerprint(tmp_path)
    assert sorted(fp) == ["a/x.parquet", "a/y.tsv", "b/z.json", "fig.png"]
    # sha256 of the file's bytes b"fig.png", computed independently
    assert fp["fig.png"] == "b4cb110da18dc91d070d2c3932d85d91e89e5b210bd0148fd741f335e3089853"


def test_compare_reports_differing_missing_and_new_files(tmp_path):
    before = {"a": "1", "b": "2", "c": "3"}
    after = {"a": "1", "b": "9", "d": "4"}
    assert output_hashes.compare_fingerprints(before, after) == {
        "identical": ["a"], "differ": ["b"], "missing": ["c"], "new": ["d"]}
    (tmp_path / "before.json").write_text(json.dumps(before))
    (tmp_path / "after.json").write_text(json.dumps(after))
    assert output_hashes.main(["compare", str(tmp_path / "before.json"), str(tmp_path / "after.json")]) == 1
    assert output_hashes.main(["compare", str(tmp_path / "before.json"), str(tmp_path / "before.json")]) == 0


def test_content_comparison_accepts_moved_checkouts_and_other_float_formats(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    before, after = tmp_path / "old" / "results", tmp_path / "new" / "results"
    for root, checkout, number, missing in ((before, "/old/repo", "0.666667", ""), (after, "/new/repo", "0.6666666667", "NaN")):
        root.mkdir(parents=True)
        pq.write_table(pa.table({"source_file": [f"{checkout}/data/dev.jsonl"], "n": [3]}), root / "claims.parquet")
        (root / "rates.tsv").write_text(f"name\trate\tgap\na\t{number}\t{missing}\n")
        (root / "fig.png").write_bytes(b"png")
    assert output_hashes.content_differences(before, after, "/old/repo", "/new/repo", 6) == {}
    # a value that differs beyond the 6th decimal, or a path that is not the checkout's, is reported
    (after / "rates.tsv").write_text("name\trate\tgap\na\t0.6667\tNaN\n")
    pq.write_table(pa.table({"source_file": ["/elsewhere/data/dev.jsonl"], "n": [3]}), after / "claims.parquet")
    assert output_hashes.content_differences(before, after, "/old/repo", "/new/repo", 6) == {
        "rates.tsv": "line 2", "claims.parquet": "column source_file"}
