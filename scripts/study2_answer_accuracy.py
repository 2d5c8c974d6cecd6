"""Rule study2_answer_accuracy: Study 2 answer accuracy per cell (INVALID wrong) with intervals.

Reads:  params files: answers[dataset][model] (ANSWER_INDICATORS), families[dataset] (the
        rule's inputs, by name); params panel (datasets, models, sources, budgets, formats,
        seed_replicates), parsers, greedy_replicate, bootstrap (draws, alpha, family_size, seed,
        batch_size).
Writes: output.accuracy (TSV).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_answer_accuracy

log_to_rule_log(snakemake.log[0])
study2_answer_accuracy(
    **snakemake.params.files, **snakemake.params.panel, parsers=list(snakemake.params.parsers),
    greedy_replicate=snakemake.params.greedy_replicate, **snakemake.params.bootstrap,
    accuracy_out=snakemake.output.accuracy,
)
