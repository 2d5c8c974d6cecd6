"""The demo's ingest, sampling and families outputs (the session's demo run), and those rules run
again on their own from scratch, which must write the same bytes."""
from pathlib import Path

import pytest

from evidence_ledger.tables import read_table
from evidence_ledger.tables.conflict_inputs import CONFLICT_QA_RECORDS, WIKICONTRADICT_INSTANCES
from evidence_ledger.tables.ingest import CLAIMS, DOCUMENTS, UNITS
from evidence_ledger.tables.sampling import FAMILIES, FAMILY_LINKS
from support.snakemake_runs import run_snakemake

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
TARGETS = [
    *(f"results/ingest/fever/claims_{s}.parquet" for s in ("dev", "train")),
    *(f"results/ingest/feverous/claims_{s}.parquet" for s in ("dev", "train", "pool")),
    *(f"results/ingest/scifact/claims_{s}.parquet" for s in ("dev", "train")),
    "results/ingest/wikicontradict/instances.parquet",
    "results/ingest/nqcc/records.parquet",
    "results/ingest/tqacc/records.parquet",
    *(f"results/sampling/{d}/sample.parquet" for d in ("fever", "feverous", "scifact")),
    *(f"results/families/{d}/families.parquet" for d in ("fever", "feverous", "scifact")),
]

pytestmark = pytest.mark.workflow


def test_demo_claims_units_and_conflict_tables_exist_with_documented_schemas(demo_run):
    fever = read_table(demo_run / "results/ingest/fever/claims_dev.parquet", CLAIMS)
    assert fever.num_rows == 100
    assert all(u == [] for u in fever.column("unresolved_ids").to_pylist())  # every gold id resolves in the demo wiki
    units = read_table(demo_run / "results/ingest/feverous/units.parquet", UNITS)
    assert set(units.column("kind").to_pylist()) == {"sentence", "cell", "header_cell", "table_caption", "item",
                                                      "title", "section"}
    assert read_table(demo_run / "results/ingest/feverous/documents.parquet", DOCUMENTS).num_rows == 40
    assert read_table(demo_run / "results/ingest/feverous/claims_pool.parquet", CLAIMS).num_rows == 80
    assert read_table(demo_run / "results/ingest/scifact/units.parquet", UNITS).num_rows > 150
    assert read_table(demo_run / "results/ingest/wikicontradict/instances.parquet", WIKICONTRADICT_INSTANCES).num_rows == 20
    assert read_table(demo_run / "results/ingest/nqcc/records.parquet", CONFLICT_QA_RECORDS).num_rows == 40


def test_demo_feverous_sample_excludes_reserved_families(demo_run):
    reserved = [l.strip() for l in (DEMO / "feverous" / "reserved_ids.txt").read_text().splitlines() if l.strip()]
    fam = read_table(demo_run / "results/families/feverous/families.parquet", FAMILIES).to_pylist()
    family = {r["claim_id"]: r["family_id"] for r in fam}
    bad = {family[r] for r in reserved}
    sample_ids = set(read_table(demo_run / "results/sampling/feverous/sample.parquet", CLAIMS).column("claim_id").to_pylist())
    assert not any(family[c] in bad for c in sample_ids)
    summary = dict(l.split("\t") for l in (demo_run / "results/sampling/feverous/sample_summary.tsv").read_text().splitlines())
    assert summary["reserved_ids"] == "4" and summary["reserved_not_found"] == "0"
    # each reserved id has a family member in the pool, so more than the 4 reserved claims are excluded
    assert int(summary["excluded_by_reserved_families"]) > 4


def test_demo_scifact_sample_is_24_of_the_40_dev_claims_and_citation_links_exist(demo_run):
    sample = read_table(demo_run / "results/sampling/scifact/sample.parquet", CLAIMS).column("claim_id").to_pylist()
    dev = read_table(demo_run / "results/ingest/scifact/claims_dev.parquet", CLAIMS).column("claim_id").to_pylist()
    assert len(sample) == 24 and len(set(sample)) == 24 and set(sample) <= set(dev) and len(dev) == 40
    links = read_table(demo_run / "results/families/scifact/family_links.parquet", FAMILY_LINKS)
    assert "citation" in set(links.column("reason").to_pylist())


def test_rerun_from_scratch_is_byte_identical(demo_run, tmp_path):
    """Only the ingest, sampling and families rules (the targets' own DAG), in an empty directory."""
    run_snakemake(tmp_path, "--configfile", REPO / "config" / "demo.yaml", "--cores", "2", *TARGETS, check=True)
    for target in TARGETS + ["results/families/fever/family_links.parquet"]:
        assert (tmp_path / target).read_bytes() == (demo_run / target).read_bytes(), target
