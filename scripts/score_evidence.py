"""Rule score_evidence: per-unit evidence indicators and relevant counts of one dataset.

Reads:  snakemake.input.evidence (results/evidence/{dataset}/evidence.parquet, EVIDENCE) and
        snakemake.input.sample (results/sampling/{dataset}/sample.parquet, CLAIMS: the gold);
        params.max_evidence, params.max_evidence_cell, params.max_sentences.
Writes: snakemake.output.indicators (EVIDENCE_INDICATORS, sampled claims only) and
        snakemake.output.relevant (RELEVANT) and snakemake.output.summary (eligibility per source x
        budget, TSV); log to snakemake.log[0], including the number of
        evidence rows of claims outside the sample (set aside).
"""
import logging

from evidence_ledger.scoring.indicators import score_evidence_tables

from evidence_ledger.rule_log import log_to_rule_log  # noqa: E402

log_to_rule_log(snakemake.log[0])  # errors with their traceback go to the rule's log
counts = score_evidence_tables(
    snakemake.input.evidence, snakemake.input.sample, snakemake.output.indicators, snakemake.output.relevant,
    snakemake.output.summary,
    max_evidence=snakemake.params.max_evidence, max_evidence_cell=snakemake.params.max_evidence_cell,
    max_sentences=snakemake.params.max_sentences)
logging.info("%d evidence indicator rows, %d claims in RELEVANT", counts["rows"], counts["claims"])
if counts["outside_sample"]:
    logging.warning("%d evidence rows are for claims outside the sample (e.g. Study 1 claims): not scored here",
                    counts["outside_sample"])
