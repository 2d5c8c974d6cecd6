"""Rule study1_answer_metrics: Study 1 accuracy and macro-F1 per source and their differences,
eligibility per source and the Eq. 4 terms, with paired claim intervals.

Reads:  input.answers (Study 1 ANSWER_INDICATORS), input.relevant (RELEVANT), input.evidence
        (EVIDENCE_INDICATORS), input.reference (optional); params design (dataset, system, parser,
        sources, checkpoints), classes, bootstrap (draws, alpha, family_size, seed, batch_size).
Writes: output.metrics (TSV with paired claim intervals).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study1_answer_metrics

log_to_rule_log(snakemake.log[0])
study1_answer_metrics(
    answers=snakemake.input.answers, relevant=snakemake.input.relevant, evidence=snakemake.input.evidence,
    reference=snakemake.input.get("reference"), **snakemake.params.design, classes=snakemake.params.classes,
    **snakemake.params.bootstrap, metrics_out=snakemake.output.metrics,
)
