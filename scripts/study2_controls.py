"""Rule study2_controls: the greedy controls analysed (Appendix F).

Reads:  input.answers (ANSWER_INDICATORS, dataset-major over params datasets x models),
        input.evidence / input.relevant / input.families (one per dataset); params datasets,
        models, parser, budget, formats, control_sources, primary_sources, mappings,
        greedy_replicate, draws, alpha, family_size, seed, batch_size.
Writes: output.controls (TSV: units, feasibility, score, E-type contrasts, agreement).
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_controls

log_to_rule_log(snakemake.log[0])
study2_controls(
    answers=list(snakemake.input.answers), evidence=list(snakemake.input.evidence),
    relevant=list(snakemake.input.relevant), families=list(snakemake.input.families),
    datasets=list(snakemake.params.datasets), models=list(snakemake.params.models), parser=snakemake.params.parser,
    budget=snakemake.params.budget, formats=list(snakemake.params.formats),
    control_sources=list(snakemake.params.control_sources), primary_sources=list(snakemake.params.primary_sources),
    mappings=list(snakemake.params.mappings), greedy_replicate=snakemake.params.greedy_replicate,
    draws=snakemake.params.draws, alpha=snakemake.params.alpha, family_size=snakemake.params.family_size,
    seed=snakemake.params.seed, batch_size=snakemake.params.batch_size, controls_out=snakemake.output.controls,
)
