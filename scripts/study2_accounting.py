"""Rule study2_accounting: Study 2 estimates, family counts, invalid rates, pattern traces.

Reads:  params files: answers[dataset][model] (ANSWER_INDICATORS), evidence / relevant /
        families [dataset] (the rule's inputs, by name); input.reference (optional); params panel
        (datasets, models, sources, budgets, formats, seed_replicates), parser,
        sensitivity_parsers, greedy_replicate.
Writes: output.estimates (ESTIMATES) and TSVs contrasts / cells / partition / crossed,
        output.invalid_rates (+ TSV), output.counts (CLUSTER_COUNTS per claim family, sampled
        seeds), output.coverage, output.traces (PATTERN_TRACES), output.examples (TSV).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_accounting

log_to_rule_log(snakemake.log[0])
study2_accounting(
    **snakemake.params.files, reference=snakemake.input.get("reference"), **snakemake.params.panel,
    parser=snakemake.params.parser, sensitivity_parsers=list(snakemake.params.sensitivity_parsers),
    greedy_replicate=snakemake.params.greedy_replicate,
    estimates_out=snakemake.output.estimates, contrasts_out=snakemake.output.contrasts,
    cells_out=snakemake.output.cells, partition_out=snakemake.output.partition,
    crossed_out=snakemake.output.crossed, invalid_rates_out=snakemake.output.invalid_rates,
    invalid_rates_tsv_out=snakemake.output.invalid_rates_tsv, counts_out=snakemake.output.counts,
    coverage_out=snakemake.output.coverage, traces_out=snakemake.output.traces,
    examples_out=snakemake.output.examples,
)
