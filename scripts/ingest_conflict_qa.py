"""Rule ingest_conflict_qa: NQ-CC / TQA-CC reader-output jsonl ->
results/ingest/{dataset}/records.parquet (CONFLICT_QA_RECORDS)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.datasets.stage import ingest_conflict_qa

log_to_rule_log(snakemake.log[0])
ingest_conflict_qa(jsonl=snakemake.input.records, records=snakemake.output.records,
                   dataset=snakemake.params.dataset)
