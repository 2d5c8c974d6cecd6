"""Rule ingest_conflict_qa: NQ-CC / TQA-CC reader-output jsonl -> records table.

Reads:  snakemake.input.records (jsonl); params.dataset (nqcc or tqacc).
Writes: snakemake.output.records (results/ingest/{dataset}/records.parquet, CONFLICT_QA_RECORDS);
        log to snakemake.log[0].
"""
import logging

from evidence_ledger.datasets.conflict_qa import read_conflict_qa
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.tables import write_table
from evidence_ledger.tables.conflict_inputs import CONFLICT_QA_RECORDS

log_to_rule_log(snakemake.log[0])
table = read_conflict_qa(snakemake.input.records, snakemake.params.dataset)
write_table(table, snakemake.output.records, CONFLICT_QA_RECORDS)
logging.info("%s: %d records", snakemake.params.dataset, table.num_rows)
