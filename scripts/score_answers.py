"""Rule score_answers: per-observation answer indicators of one model on one dataset.

Reads:  input.parsed (results/generation/{model}/{dataset}/parsed.parquet, PARSED) and
        input.sample (results/sampling/{dataset}/sample.parquet, CLAIMS: the gold);
        params.parsers (which parsed label columns to score, e.g. strict and lenient).
Writes: output.indicators (ANSWER_INDICATORS, one row per observation and parser); log.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.scoring.stage import score_answers

log_to_rule_log(snakemake.log[0])
score_answers(parsed=snakemake.input.parsed, sample=snakemake.input.sample,
              indicators=snakemake.output.indicators, parsers=list(snakemake.params.parsers))
