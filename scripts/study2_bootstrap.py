"""Rule study2_bootstrap: family x seed bootstrap of one Study 2 comparison family.

Reads:  input.counts (CLUSTER_COUNTS of study2_accounting), input.reference (optional);
        wildcards.family (primary / exploratory / crossed); params datasets, models, sources,
        budgets, formats, seed_replicates, draws, alpha, family_size, seed, batch_size.
Writes: output.intervals (INTERVALS), output.summary (TSV).
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_bootstrap

log_to_rule_log(snakemake.log[0])
study2_bootstrap(
    counts=snakemake.input.counts, reference=snakemake.input.get("reference"), family=snakemake.wildcards.family,
    datasets=list(snakemake.params.datasets), models=list(snakemake.params.models),
    sources=list(snakemake.params.sources), budgets=list(snakemake.params.budgets),
    formats=list(snakemake.params.formats), seed_replicates=list(snakemake.params.seed_replicates),
    draws=snakemake.params.draws, alpha=snakemake.params.alpha, family_size=snakemake.params.family_size,
    seed=snakemake.params.seed, batch_size=snakemake.params.batch_size,
    intervals_out=snakemake.output.intervals, summary_out=snakemake.output.summary,
)
