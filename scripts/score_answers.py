"""Rule score_answers: per-observation answer indicators of one model on one dataset.

Reads:  snakemake.input.parsed (results/generation/{model}/{dataset}/parsed.parquet, PARSED) and
        snakemake.input.sample (results/sampling/{dataset}/sample.parquet, CLAIMS: the gold);
        params.parsers (which parsed label columns to score, e.g. strict and lenient).
Writes: snakemake.output.indicators (ANSWER_INDICATORS, one row per observation and parser);
        log to snakemake.log[0].
"""
import logging

from evidence_ledger.scoring.indicators import score_answer_tables

from evidence_ledger.rule_log import log_to_rule_log  # noqa: E402

log_to_rule_log(snakemake.log[0])  # errors with their traceback go to the rule's log
counts = score_answer_tables(snakemake.input.parsed, snakemake.input.sample, snakemake.output.indicators,
                             parsers=snakemake.params.parsers)
logging.info("%d answer indicator rows (parsers %s)", counts["rows"], list(snakemake.params.parsers))
if counts["outside_sample"]:
    logging.warning("%d parsed answers are for claims outside the sample: not scored", counts["outside_sample"])
