"""Rule study2_parser_sensitivity: the primary family under every parser, same draws.

Reads:  params files: answers[dataset][model] (ANSWER_INDICATORS), evidence / relevant /
        families [dataset] (the rule's inputs, by name); params panel (datasets, models, sources,
        budgets, formats, seed_replicates), parsers, bootstrap (draws, alpha, family_size, seed,
        batch_size).
Writes: output.counts (CLUSTER_COUNTS of every parser), output.sensitivity (TSV).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_parser_sensitivity

log_to_rule_log(snakemake.log[0])
study2_parser_sensitivity(
    **snakemake.params.files, **snakemake.params.panel, parsers=list(snakemake.params.parsers),
    **snakemake.params.bootstrap, counts_out=snakemake.output.counts, sensitivity_out=snakemake.output.sensitivity,
)
