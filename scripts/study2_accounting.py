"""Rule study2_accounting: Study 2 estimates, family counts, invalid rates, pattern traces.

Reads:  input.answers (ANSWER_INDICATORS, dataset-major over params datasets x models),
        input.evidence / input.relevant / input.families (one per dataset), input.reference
        (optional); params datasets, models, sources, budgets, formats, parser,
        sensitivity_parsers, greedy_replicate, seed_replicates.
Writes: output.estimates (ESTIMATES) and TSVs contrasts / cells / partition / crossed,
        output.invalid_rates (+ TSV), output.counts (CLUSTER_COUNTS per claim family, sampled
        seeds), output.coverage, output.traces (PATTERN_TRACES), output.examples (TSV).
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_accounting

log_to_rule_log(snakemake.log[0])
study2_accounting(
    answers=list(snakemake.input.answers), evidence=list(snakemake.input.evidence),
    relevant=list(snakemake.input.relevant), families=list(snakemake.input.families),
    reference=snakemake.input.get("reference"),
    datasets=list(snakemake.params.datasets), models=list(snakemake.params.models),
    sources=list(snakemake.params.sources), budgets=list(snakemake.params.budgets),
    formats=list(snakemake.params.formats), parser=snakemake.params.parser,
    sensitivity_parsers=list(snakemake.params.sensitivity_parsers),
    greedy_replicate=snakemake.params.greedy_replicate, seed_replicates=list(snakemake.params.seed_replicates),
    estimates_out=snakemake.output.estimates, contrasts_out=snakemake.output.contrasts,
    cells_out=snakemake.output.cells, partition_out=snakemake.output.partition,
    crossed_out=snakemake.output.crossed, invalid_rates_out=snakemake.output.invalid_rates,
    invalid_rates_tsv_out=snakemake.output.invalid_rates_tsv, counts_out=snakemake.output.counts,
    coverage_out=snakemake.output.coverage, traces_out=snakemake.output.traces,
    examples_out=snakemake.output.examples,
)
