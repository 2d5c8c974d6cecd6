"""Rule ingest_toy: toy claims (per split) + pages.jsonl -> canonical tables (CLAIMS, UNITS, DOCUMENTS)."""
from evidence_ledger.datasets.canonical_output import write_canonical_tables
from toy_benchmark.reader import ingest_toy

splits = list(snakemake.params.splits)
claims, units, docs = ingest_toy(dict(zip(splits, snakemake.input.claims)), snakemake.input.get("pages"))
write_canonical_tables(claims, units, docs, splits, snakemake.output.claims, snakemake.output.units,
                       snakemake.output.documents)
