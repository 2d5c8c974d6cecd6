"""Rule study1_answer_metrics: Study 1 accuracy and macro-F1 per source and their differences.

Reads:  input.answers (Study 1 ANSWER_INDICATORS), input.relevant (RELEVANT), input.reference
        (optional); params dataset, system, parser, sources, checkpoints, classes, draws, alpha,
        family_size, seed, batch_size.
Writes: output.metrics (TSV with paired claim intervals).
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study1_answer_metrics

log_to_rule_log(snakemake.log[0])
study1_answer_metrics(
    answers=snakemake.input.answers, relevant=snakemake.input.relevant, reference=snakemake.input.get("reference"),
    dataset=snakemake.params.dataset, system=snakemake.params.system, parser=snakemake.params.parser,
    sources=list(snakemake.params.sources), checkpoints=list(snakemake.params.checkpoints),
    classes=snakemake.params.classes, draws=snakemake.params.draws, alpha=snakemake.params.alpha,
    family_size=snakemake.params.family_size, seed=snakemake.params.seed, batch_size=snakemake.params.batch_size,
    metrics_out=snakemake.output.metrics,
)
