"""Rule ingest_scifact: SciFact claims (one jsonl per split) + optional corpus.jsonl ->
results/ingest/scifact/claims_{split}.parquet (CLAIMS), units.parquet (UNITS), documents.parquet (DOCUMENTS)."""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.datasets.stage import ingest_scifact

log_to_rule_log(snakemake.log[0])
ingest_scifact(claim_files=list(snakemake.input.claims), corpus=snakemake.input.get("corpus"),
               claim_tables=list(snakemake.output.claims), units=snakemake.output.units,
               documents=snakemake.output.documents, splits=list(snakemake.params.splits),
               on_unresolved=snakemake.params.on_unresolved)
