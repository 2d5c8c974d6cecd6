"""Rule study2_answer_accuracy: Study 2 answer accuracy per cell (INVALID wrong) with intervals.

Reads:  input.answers (ANSWER_INDICATORS, dataset-major), input.families (one per dataset);
        params datasets, models, sources, budgets, formats, parsers, greedy_replicate,
        seed_replicates, draws, alpha, family_size, seed, batch_size.
Writes: output.accuracy (TSV).
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_answer_accuracy

log_to_rule_log(snakemake.log[0])
study2_answer_accuracy(
    answers=list(snakemake.input.answers), families=list(snakemake.input.families),
    datasets=list(snakemake.params.datasets), models=list(snakemake.params.models),
    sources=list(snakemake.params.sources), budgets=list(snakemake.params.budgets),
    formats=list(snakemake.params.formats), parsers=list(snakemake.params.parsers),
    greedy_replicate=snakemake.params.greedy_replicate, seed_replicates=list(snakemake.params.seed_replicates),
    draws=snakemake.params.draws, alpha=snakemake.params.alpha, family_size=snakemake.params.family_size,
    seed=snakemake.params.seed, batch_size=snakemake.params.batch_size, accuracy_out=snakemake.output.accuracy,
)
