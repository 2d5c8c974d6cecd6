"""Rule ingest_fever: FEVER claims (one jsonl per split) + optional wiki-pages directory ->
results/ingest/fever/claims_{split}.parquet (CLAIMS), units.parquet (UNITS), documents.parquet (DOCUMENTS)."""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.datasets.stage import ingest_fever

log_to_rule_log(snakemake.log[0])
ingest_fever(claim_files=list(snakemake.input.claims), wiki=snakemake.input.get("wiki"),
             claim_tables=list(snakemake.output.claims), units=snakemake.output.units,
             documents=snakemake.output.documents, splits=list(snakemake.params.splits),
             on_unresolved=snakemake.params.on_unresolved, data_root=snakemake.params.data_root)
