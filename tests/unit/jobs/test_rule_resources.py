"""rule_resources: each heavy rule's mem_mb / runtime / disk_mb from the size of its inputs."""
from evidence_ledger.benchmark_registry import FEVER, SCIFACT
from evidence_ledger.jobs.rule_resources import MODELS, ingest_resource, input_mb, resource, rule_resources


def test_input_size_walks_directories_and_counts_missing_paths_as_zero(tmp_path):
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "a.jsonl").write_bytes(b"x" * 1_500_000)
    (tmp_path / "wiki" / "sub").mkdir()
    (tmp_path / "wiki" / "sub" / "b.npy").write_bytes(b"x" * 500_000)
    (tmp_path / "claims.jsonl").write_bytes(b"x" * 1_000_000)
    assert input_mb([tmp_path / "wiki", str(tmp_path / "claims.jsonl"), tmp_path / "absent"]) == 3.0


def test_resources_grow_with_the_input_by_the_documented_model(tmp_path):
    """index_corpus on a 40 MB documents table: mem 700 + 4 x 40 = 860 MB, runtime
    10 + 0.025 x 40 = 11 min, disk 50 + 4.5 x 40 = 230 MB (the MODELS coefficients)."""
    docs = tmp_path / "documents.parquet"
    docs.write_bytes(b"x" * 40_000_000)
    m = MODELS["index_corpus"]
    expected = {"mem_mb": m.mem_base + m.mem_per_mb * 40, "runtime": m.runtime_base + m.runtime_per_mb * 40,
                "disk_mb": m.disk_base + m.disk_per_mb * 40}
    got = rule_resources("index_corpus", [docs])
    assert got == {k: int(-(-v // 1)) for k, v in expected.items()} == {"mem_mb": 860, "runtime": 11, "disk_mb": 230}
    assert resource("index_corpus", "mem_mb")({}, [docs]) == got["mem_mb"]
    assert rule_resources("index_corpus", [tmp_path / "absent"]) == {
        "mem_mb": m.mem_base, "runtime": m.runtime_base, "disk_mb": m.disk_base}


def test_ingest_resources_fixed_by_the_registry_or_sized_for_the_streaming_wikis(tmp_path):
    """FEVER / FEVEROUS (registry ingest_resources None) are sized from the release; a benchmark
    with fixed values (SciFact, plugins) keeps them, disk_mb 1000 when not given."""
    assert FEVER.ingest_resources is None
    assert ingest_resource(SCIFACT.ingest_resources, "mem_mb") == SCIFACT.ingest_resources["mem_mb"]
    assert ingest_resource(SCIFACT.ingest_resources, "disk_mb") == 1000
    wiki = tmp_path / "wiki-pages"
    wiki.mkdir()
    (wiki / "wiki-001.jsonl").write_bytes(b"x" * 100_000_000)
    assert ingest_resource(FEVER.ingest_resources, "mem_mb")({}, [wiki]) == \
        rule_resources("ingest", [wiki])["mem_mb"] == int(-(-(MODELS["ingest"].mem_base + MODELS["ingest"].mem_per_mb * 100) // 1))


def test_index_memory_is_capped_where_the_matrix_no_longer_grows_it(tmp_path):
    """index_corpus on a 6 GB documents table (about the full FEVEROUS wiki's): the linear term
    (700 + 4 x 6,000 MB) is capped at mem_max, pass 2 holding one block of the matrix; the
    other rules have no cap."""
    docs = tmp_path / "documents.parquet"
    with open(docs, "wb") as f:
        f.truncate(6_000_000_000)  # sparse: the size is what counts
    m = MODELS["index_corpus"]
    assert m.mem_base + m.mem_per_mb * 6000 > m.mem_max
    assert rule_resources("index_corpus", [docs])["mem_mb"] == m.mem_max == 3000
    assert all(MODELS[r].mem_max is None for r in ("ingest", "retrieve", "build_pools"))


def test_the_rules_after_the_pools_are_sized_by_their_pools_not_by_the_units_they_filter(tmp_path):
    """order_bm25 / order_bge count only the POOLS input and assemble_evidence only its two
    ORDERING inputs: a 5 GB UNITS file beside them does not change their memory."""
    from snakemake.iocontainers import InputFiles  # the type of a Snakemake job's ``input``

    pools, units = tmp_path / "pools.parquet", tmp_path / "units.parquet"
    pools.write_bytes(b"x" * 600_000)
    with open(units, "wb") as f:
        f.truncate(5_000_000_000)
    job_input = InputFiles(fromdict={"pools": str(pools), "units": str(units)})
    for rule in ("order_bm25", "order_bge"):
        m = MODELS[rule]
        assert resource(rule, "mem_mb")({}, job_input) == int(-(-(m.mem_base + m.mem_per_mb * 0.6) // 1))
    bm25, bge = tmp_path / "ordering_bm25.parquet", tmp_path / "ordering_bge.parquet"
    bm25.write_bytes(b"x" * 500_000)
    bge.write_bytes(b"x" * 700_000)
    ev_input = InputFiles(fromdict={"bm25": str(bm25), "bge": str(bge), "units": str(units)})
    m = MODELS["assemble_evidence"]
    assert resource("assemble_evidence", "mem_mb")({}, ev_input) == int(-(-(m.mem_base + m.mem_per_mb * 1.2) // 1))
