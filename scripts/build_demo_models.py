"""Rule build_demo_models: a small locally trained chat model standing in for a Study 2 LLM.

Reads:  snakemake.input.claims (CLAIMS, train splits) and input.units (UNITS) of the training
        datasets (same order); params.arch (qwen3 | llama31), params.chat_template_kwargs,
        params.code_mappings, params.training (steps, batch_size, lr, seed, vocab_size,
        max_seconds).
Writes: snakemake.output[0], a model directory (safetensors weights, config, tokenizer with
        chat template); log to snakemake.log[0].
"""
import logging
from pathlib import Path

from evidence_ledger.generation.requests import code_mappings
from evidence_ledger.generation.tiny_models import build_demo_model, demo_training_examples
from evidence_ledger.tables import read_table
from evidence_ledger.tables.ingest import CLAIMS, UNITS

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
examples, texts = [], []
for claims_path, units_path in zip(snakemake.input.claims, snakemake.input.units):
    dataset = Path(claims_path).parent.name
    claims = read_table(claims_path, CLAIMS).to_pylist()
    units = read_table(units_path, UNITS, columns=["unit_id", "doc_id", "position", "text"]).to_pylist()
    ex = demo_training_examples(dataset, claims, units)
    logging.info("%s: %d train claims -> %d training examples", dataset, len(claims), len(ex))
    examples += ex
    texts += [u["text"] for u in units] + [c["claim"] for c in claims]
training = dict(snakemake.params.training)
training.pop("train_datasets", None)
stats = build_demo_model(
    snakemake.output[0],
    snakemake.params.arch,
    examples,
    texts,
    code_mappings({"code_mappings": snakemake.params.code_mappings}),
    chat_template_kwargs=snakemake.params.chat_template_kwargs,
    **training,
)
logging.info("built %s: %s", snakemake.output[0], stats)
