"""Rule score_evidence: per-unit evidence indicators and relevant counts of one dataset.

Reads:  input.evidence (results/evidence/{dataset}/evidence.parquet, EVIDENCE) and input.sample
        (results/sampling/{dataset}/sample.parquet, CLAIMS: the gold); params.max_evidence,
        params.max_evidence_cell, params.max_sentences.
Writes: output.indicators (EVIDENCE_INDICATORS, sampled claims only), output.relevant
        (RELEVANT), output.summary (eligibility per source x budget, TSV); log, including the
        number of evidence rows of claims outside the sample (set aside).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.scoring.stage import score_evidence

log_to_rule_log(snakemake.log[0])
score_evidence(
    evidence=snakemake.input.evidence, sample=snakemake.input.sample, indicators=snakemake.output.indicators,
    relevant=snakemake.output.relevant, summary=snakemake.output.summary,
    max_evidence=snakemake.params.max_evidence, max_evidence_cell=snakemake.params.max_evidence_cell,
    max_sentences=snakemake.params.max_sentences,
)
