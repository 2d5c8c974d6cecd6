"""Rule train_verifier: fine-tune one verifier checkpoint (all parameters) on source-0 inputs.

Reads:  input.inputs (training VERIFIER_INPUTS), the base model (params.base: Hub id + pinned
        revision, or the demo directory); params.checkpoint (1-based index), params.seed and
        the training settings of config verifier as named params.
Writes: output[0] (checkpoint directory: model.safetensors + config + tokenizer,
        training_log.jsonl, examples_seen.parquet, metadata.json); log.
"""
from evidence_ledger.run.gpu_slots import pin_job_gpus
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.verifier.stage import train_verifier

log_to_rule_log(snakemake.log[0])
pin_job_gpus(snakemake.resources.gpu)  # workstation: devices of its own; SLURM: left as assigned
p = snakemake.params
train_verifier(
    inputs=snakemake.input.inputs, checkpoint_dir=snakemake.output[0], checkpoint=int(p.checkpoint),
    seed=int(p.seed), base=dict(p.base), final_update=p.final_update, batch_size=p.batch_size,
    grad_accumulation=p.grad_accumulation, learning_rate=p.learning_rate, warmup_ratio=p.warmup_ratio,
    precision=p.precision, label_set=list(p.label_set), examples=p.examples, weight_decay=p.weight_decay,
    max_grad_norm=p.max_grad_norm,
)
