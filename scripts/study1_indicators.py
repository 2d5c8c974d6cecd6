"""Rule study1_indicators: Study 1 per-claim indicators for the accounting.

Reads:  input.answers (VERIFIER_ANSWERS), input.claims (evaluation CLAIMS), input.evidence
        (provider EVIDENCE tables, in params.sources order), input.inputs (evaluation
        VERIFIER_INPUTS); params.sources, params.max_evidence, params.max_evidence_cell
        (FEVEROUS scorer budgets).
Writes: output.answers (ANSWER_INDICATORS), output.evidence (EVIDENCE_INDICATORS),
        output.relevant (RELEVANT), output.unresolved (per-claim unresolved flags: window and
        whole list, repeated ids), output.unresolved_tsv (their per-source report TSV); log.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.verifier.stage import study1_indicators

log_to_rule_log(snakemake.log[0])
study1_indicators(
    answers=snakemake.input.answers, claims=snakemake.input.claims, evidence=list(snakemake.input.evidence),
    inputs=snakemake.input.inputs, answer_indicators=snakemake.output.answers,
    evidence_indicators=snakemake.output.evidence, relevant=snakemake.output.relevant,
    unresolved=snakemake.output.unresolved, unresolved_tsv=snakemake.output.unresolved_tsv,
    sources=list(snakemake.params.sources),
    max_evidence=snakemake.params.max_evidence, max_evidence_cell=snakemake.params.max_evidence_cell,
)
