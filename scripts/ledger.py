"""Rule ledger: write results/report/ledger.json, every headline number of the run with its provenance.

Reads:  input.tables (the report TSVs of params.sources), input.provenance (provenance.tsv) and
        input.upstream (the files the tables' rules read, hashed); params sources (per table: path,
        kind, study, rule, inputs) and settings (the run's resolved config).
Writes: output[0] (ledger.json, validated against src/evidence_ledger/report/ledger.schema.json).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.report.stage import ledger

log_to_rule_log(snakemake.log[0])
ledger(sources=dict(snakemake.params.sources), provenance=snakemake.input.provenance,
       settings=dict(snakemake.params.settings), ledger_out=snakemake.output[0])
