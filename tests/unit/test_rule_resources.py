"""rule_resources: each heavy rule's mem_mb / runtime / disk_mb from the size of its inputs."""
from evidence_ledger.rule_resources import MODELS, input_mb, resource, rule_resources


def test_input_size_walks_directories_and_counts_missing_paths_as_zero(tmp_path):
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "a.jsonl").write_bytes(b"x" * 1_500_000)
    (tmp_path / "wiki" / "sub").mkdir()
    (tmp_path / "wiki" / "sub" / "b.npy").write_bytes(b"x" * 500_000)
    (tmp_path / "claims.jsonl").write_bytes(b"x" * 1_000_000)
    assert input_mb([tmp_path / "wiki", str(tmp_path / "claims.jsonl"), tmp_path / "absent"]) == 3.0


def test_resources_grow_with_the_input_by_the_documented_model(tmp_path):
    """index_corpus on a 40 MB documents table: mem 1000 + 25 x 40 = 2000 MB, runtime
    10 + 0.15 x 40 = 16 min, disk 50 + 3.5 x 40 = 190 MB (the MODELS coefficients)."""
    docs = tmp_path / "documents.parquet"
    docs.write_bytes(b"x" * 40_000_000)
    m = MODELS["index_corpus"]
    expected = {"mem_mb": m.mem_base + m.mem_per_mb * 40, "runtime": m.runtime_base + m.runtime_per_mb * 40,
                "disk_mb": m.disk_base + m.disk_per_mb * 40}
    got = rule_resources("index_corpus", [docs])
    assert got == {k: int(-(-v // 1)) for k, v in expected.items()}
    assert resource("index_corpus", "mem_mb")({}, [docs]) == got["mem_mb"]
    assert rule_resources("index_corpus", [tmp_path / "absent"]) == {
        "mem_mb": m.mem_base, "runtime": m.runtime_base, "disk_mb": m.disk_base}
