"""Rule verifier_summary: Study 1 verifier diagnostics (inputs, training, answer shares) as TSV.

Reads:  snakemake.input.inputs (VERIFIER_INPUTS of train and dev), snakemake.input.checkpoints
        (checkpoint directories), snakemake.input.answers (VERIFIER_ANSWERS).
Writes: snakemake.output[0] (results/verifier/summary.tsv); log to snakemake.log[0].
"""
import logging

from evidence_ledger.verifier.summary import write_verifier_summary

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
n = write_verifier_summary(list(snakemake.input.inputs), list(snakemake.input.checkpoints), snakemake.input.answers,
                           snakemake.output[0])
logging.info("%d summary rows", n)
