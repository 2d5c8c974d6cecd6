"""Rules ingest_<benchmark> (one per registered benchmark: fever, feverous, scifact, plugins):
the benchmark's claim jsonl per split (+ its corpus: FEVER wiki-pages directory, FEVEROUS SQLite
wiki, SciFact corpus.jsonl) -> results/ingest/<benchmark>/claims_{split}.parquet (CLAIMS),
units.parquet (UNITS), documents.parquet (DOCUMENTS), read by the benchmark registry's reader."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.datasets.stage import ingest_claim_benchmark

log_to_rule_log(snakemake.log[0])
ingest_claim_benchmark(benchmark=snakemake.params.benchmark, claim_files=list(snakemake.input.claims),
                       corpus=snakemake.input.get("corpus"), claim_tables=list(snakemake.output.claims),
                       units=snakemake.output.units, documents=snakemake.output.documents,
                       splits=list(snakemake.params.splits), on_unresolved=snakemake.params.on_unresolved,
                       data_root=snakemake.params.data_root)
