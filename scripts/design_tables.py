"""Rule design_tables: the paper's Tables 4 (design) and 5 (populations).

Reads:  input.requests (REQUESTS, one per model x dataset); params files: answers[dataset][model],
        sample_summaries / samples / families / evidence / relevant [dataset] (the rule's inputs,
        by name); params datasets, models.
Writes: output.design (TSV: conditions, request rows and unique requests per model x dataset x
        condition), output.populations (TSV: each population's size through the joins).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import design_tables

log_to_rule_log(snakemake.log[0])
design_tables(
    requests=list(snakemake.input.requests), **snakemake.params.files, datasets=list(snakemake.params.datasets),
    models=list(snakemake.params.models), design_out=snakemake.output.design,
    populations_out=snakemake.output.populations,
)
