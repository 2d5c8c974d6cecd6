"""Rule study2_bootstrap: family x seed bootstrap of one Study 2 comparison family.

Reads:  input.counts (CLUSTER_COUNTS of study2_accounting), input.reference (optional);
        wildcards.family (primary / exploratory / crossed); params panel (datasets, models,
        sources, budgets, formats, seed_replicates), bootstrap (draws, alpha, family_size, seed,
        batch_size) of the family.
Writes: output.intervals (INTERVALS), output.summary (TSV).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_bootstrap

log_to_rule_log(snakemake.log[0])
study2_bootstrap(
    counts=snakemake.input.counts, reference=snakemake.input.get("reference"), family=snakemake.wildcards.family,
    **snakemake.params.panel, **snakemake.params.bootstrap,
    intervals_out=snakemake.output.intervals, summary_out=snakemake.output.summary,
)
