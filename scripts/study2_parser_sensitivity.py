"""Rule study2_parser_sensitivity: the primary family under every parser, same draws.

Reads:  input.answers (ANSWER_INDICATORS, dataset-major), input.evidence / relevant / families
        (one per dataset); params datasets, models, sources, budgets, formats, parsers,
        seed_replicates, draws, alpha, family_size, seed, batch_size.
Writes: output.counts (CLUSTER_COUNTS of every parser), output.sensitivity (TSV).
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_parser_sensitivity

log_to_rule_log(snakemake.log[0])
study2_parser_sensitivity(
    answers=list(snakemake.input.answers), evidence=list(snakemake.input.evidence),
    relevant=list(snakemake.input.relevant), families=list(snakemake.input.families),
    datasets=list(snakemake.params.datasets), models=list(snakemake.params.models),
    sources=list(snakemake.params.sources), budgets=list(snakemake.params.budgets),
    formats=list(snakemake.params.formats), parsers=list(snakemake.params.parsers),
    seed_replicates=list(snakemake.params.seed_replicates), draws=snakemake.params.draws,
    alpha=snakemake.params.alpha, family_size=snakemake.params.family_size, seed=snakemake.params.seed,
    batch_size=snakemake.params.batch_size, counts_out=snakemake.output.counts,
    sensitivity_out=snakemake.output.sensitivity,
)
