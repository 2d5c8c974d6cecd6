"""Rule study2_controls: the greedy controls analysed (Appendix F).

Reads:  params files: answers[dataset][model] (ANSWER_INDICATORS), evidence / relevant /
        families [dataset] (the rule's inputs, by name); params datasets, models, parser, budget,
        formats, control_sources, primary_sources, mappings, greedy_replicate, bootstrap (draws,
        alpha, family_size, seed, batch_size).
Writes: output.controls (TSV: units, feasibility, score, E-type contrasts, agreement).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_controls

log_to_rule_log(snakemake.log[0])
study2_controls(
    **snakemake.params.files, datasets=list(snakemake.params.datasets), models=list(snakemake.params.models),
    parser=snakemake.params.parser, budget=snakemake.params.budget, formats=list(snakemake.params.formats),
    control_sources=list(snakemake.params.control_sources), primary_sources=list(snakemake.params.primary_sources),
    mappings=list(snakemake.params.mappings), greedy_replicate=snakemake.params.greedy_replicate,
    **snakemake.params.bootstrap, controls_out=snakemake.output.controls,
)
