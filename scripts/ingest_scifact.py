"""Rule ingest_scifact: SciFact claims (per split) + corpus.jsonl -> canonical tables.

Reads:  snakemake.input.claims (one jsonl per split, in params.splits order), optional
        snakemake.input.corpus (corpus.jsonl).
Writes: snakemake.output.claims (results/ingest/scifact/claims_{split}.parquet, CLAIMS),
        output.units (UNITS), output.documents (DOCUMENTS); log to snakemake.log[0].
"""
import logging

from evidence_ledger.datasets.scifact import ingest_scifact
from evidence_ledger.datasets.canonical_output import write_canonical_tables

from evidence_ledger.rule_log import log_to_rule_log  # noqa: E402

log_to_rule_log(snakemake.log[0])  # errors with their traceback go to the rule's log
splits = list(snakemake.params.splits)
claims_in = dict(zip(splits, snakemake.input.claims))
claims, units, docs = ingest_scifact(claims_in, snakemake.input.get("corpus"), snakemake.params.on_unresolved)
write_canonical_tables(claims, units, docs, splits, snakemake.output.claims, snakemake.output.units,
                       snakemake.output.documents)
