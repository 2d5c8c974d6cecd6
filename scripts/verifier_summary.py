"""Rule verifier_summary: Study 1 verifier diagnostics (inputs, training, answer shares) as TSV.

Reads:  input.inputs (VERIFIER_INPUTS of train and dev), input.checkpoints (checkpoint
        directories), input.answers (VERIFIER_ANSWERS).
Writes: output[0] (results/verifier/summary.tsv); log.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.verifier.stage import verifier_summary

log_to_rule_log(snakemake.log[0])
verifier_summary(inputs=list(snakemake.input.inputs), checkpoints=list(snakemake.input.checkpoints),
                 answers=snakemake.input.answers, summary=snakemake.output[0])
