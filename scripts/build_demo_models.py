"""Rule build_demo_models: a small locally trained chat model standing in for a Study 2 LLM.

Reads:  snakemake.input.claims (CLAIMS, train splits) and input.units (UNITS) of the training
        datasets (same order); params.arch (qwen3 | llama31), params.chat_template_kwargs,
        params.code_mappings, params.training (steps, batch_size, lr, seed, vocab_size,
        max_seconds, conflict_tasks). With conflict_tasks enabled also input.wikicontradict
        (WIKICONTRADICT_INSTANCES), input.fewshot (judge few-shot JSONL), input.reader_records
        (CONFLICT_QA_RECORDS per DiffGR dataset) and params.conflict (templates, passage_version,
        reader_prompt, closed_book_prompt): the conflict-task mixture of generation.demo_tasks.
Writes: snakemake.output[0], a model directory (safetensors weights, config, tokenizer with
        chat template); log to snakemake.log[0].
"""
import logging
from pathlib import Path

from evidence_ledger.generation.demo_tasks import conflict_mixture
from evidence_ledger.generation.requests import code_mappings
from evidence_ledger.generation.tiny_models import build_demo_model, demo_training_examples
from evidence_ledger.tables import read_table
from evidence_ledger.tables.conflict_inputs import CONFLICT_QA_RECORDS, WIKICONTRADICT_INSTANCES
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
conflict_cfg = training.pop("conflict_tasks", None) or {}
extra, extra_steps = [], 0
if conflict_cfg.get("enabled"):
    from evidence_ledger.conflict.judge import load_fewshot_examples

    cp = snakemake.params.conflict
    wc_rows = [r for f in snakemake.input.wikicontradict for r in read_table(f, WIKICONTRADICT_INSTANCES).to_pylist()]
    fewshot = [e for f in snakemake.input.fewshot for e in load_fewshot_examples(f)]
    records = [r for f in snakemake.input.reader_records for r in read_table(f, CONFLICT_QA_RECORDS).to_pylist()]
    extra, counts = conflict_mixture(wc_rows, cp["templates"], fewshot, records, cp["reader_prompt"],
                                     cp["closed_book_prompt"], conflict_cfg.get("weights", {}),
                                     cp["passage_version"], seed=training.get("seed", 0))
    extra_steps = int(conflict_cfg.get("steps", 0))
    logging.info("conflict tasks: %s pairs (after weighting), %d extra steps", counts, extra_steps)
stats = build_demo_model(
    snakemake.output[0],
    snakemake.params.arch,
    examples,
    texts,
    code_mappings({"code_mappings": snakemake.params.code_mappings}),
    chat_template_kwargs=snakemake.params.chat_template_kwargs,
    extra_pairs=extra,
    extra_steps=extra_steps,
    **training,
)
logging.info("built %s: %s", snakemake.output[0], stats)
