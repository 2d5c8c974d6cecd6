"""Rule predict_verifier: every checkpoint answers every evaluation claim from every source.

Reads:  input.checkpoints (checkpoint directories, index = position + 1), input.inputs
        (evaluation VERIFIER_INPUTS, all sources); params.system, params.batch_size,
        params.precision.
Writes: output[0] (VERIFIER_ANSWERS: label + class probabilities); log.
"""
from evidence_ledger.run.gpu_slots import pin_job_gpus
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.verifier.stage import predict_verifier

log_to_rule_log(snakemake.log[0])
pin_job_gpus(snakemake.resources.gpu)  # workstation: devices of its own; SLURM: left as assigned
predict_verifier(checkpoints=list(snakemake.input.checkpoints), inputs=snakemake.input.inputs,
                 answers=snakemake.output[0], system=snakemake.params.system,
                 batch_size=snakemake.params.batch_size, precision=snakemake.params.precision)
