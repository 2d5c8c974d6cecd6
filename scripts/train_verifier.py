"""Rule train_verifier: fine-tune one verifier checkpoint (all parameters) on source-0 inputs.

Reads:  snakemake.input.inputs (training VERIFIER_INPUTS), the base model (params.base: Hub
        id + pinned revision, or the demo directory); params.checkpoint (1-based index),
        params.seed, params.settings (config verifier: updates, batch, lr, warm-up, ...).
Writes: snakemake.output[0] (checkpoint directory: model.safetensors + config + tokenizer,
        training_log.jsonl, examples_seen.parquet, metadata.json); log to snakemake.log[0].
"""
import logging

from tqdm import tqdm

from evidence_ledger.verifier.train import BaseModel, TrainingSettings, run_train

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
s = dict(snakemake.params.settings)
settings = TrainingSettings(seed=int(snakemake.params.seed), label_set=tuple(s.pop("label_set")), **s)
meta = run_train(snakemake.input.inputs, BaseModel(**snakemake.params.base), settings, snakemake.output[0],
                 checkpoint=int(snakemake.params.checkpoint),
                 progress=lambda it, desc: tqdm(it, desc=desc, mininterval=5))
logging.info("checkpoint %d: %d distinct examples, %d updates, final loss %s, device %s",
             meta["checkpoint"], meta["distinct_examples"], meta["final_update"], meta["final_loss"], meta["device"])
