"""Rule predict_verifier: every checkpoint answers every evaluation claim from every source.

Reads:  snakemake.input.checkpoints (checkpoint directories, index = position + 1),
        snakemake.input.inputs (evaluation VERIFIER_INPUTS, all sources); params.system,
        params.batch_size, params.precision.
Writes: snakemake.output[0] (VERIFIER_ANSWERS: label + class probabilities); log to snakemake.log[0].
"""
import logging

from tqdm import tqdm

from evidence_ledger.verifier.predict import run_predict

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
n = run_predict(list(snakemake.input.checkpoints), snakemake.input.inputs, snakemake.output[0],
                system=snakemake.params.system, batch_size=snakemake.params.batch_size,
                precision=snakemake.params.precision,
                progress=lambda it, desc: tqdm(it, desc=desc, mininterval=5), log=logging.getLogger("predict"))
logging.info("%d answers written", n)
