"""Rule study1_bootstrap: paired claim bootstrap of the Study 1 components.

Reads:  input.counts (CLUSTER_COUNTS of study1_accounting), input.reference (optional); params
        sources, budget, checkpoints, answer_format, bootstrap (draws, alpha, family_size, seed,
        batch_size).
Writes: output.intervals (INTERVALS), output.summary (TSV).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study1_bootstrap

log_to_rule_log(snakemake.log[0])
study1_bootstrap(
    counts=snakemake.input.counts, reference=snakemake.input.get("reference"),
    sources=list(snakemake.params.sources), budget=snakemake.params.budget,
    checkpoints=list(snakemake.params.checkpoints), answer_format=snakemake.params.answer_format,
    **snakemake.params.bootstrap, intervals_out=snakemake.output.intervals, summary_out=snakemake.output.summary,
)
