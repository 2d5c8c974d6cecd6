"""Rule build_demo_models: a small locally trained chat model standing in for a Study 2 LLM.

Reads:  input.claims (CLAIMS, train splits) and input.units (UNITS) of the training datasets
        (same order); with conflict tasks on also input.wikicontradict (WIKICONTRADICT_INSTANCES),
        input.fewshot (judge few-shot JSONL) and input.reader_records (CONFLICT_QA_RECORDS).
Writes: output[0], a model directory (safetensors weights, config, tokenizer with chat template).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.demo.stage import build_demo_models

log_to_rule_log(snakemake.log[0])
build_demo_models(
    claims=list(snakemake.input.claims),
    units=list(snakemake.input.units),
    wikicontradict=list(snakemake.input.wikicontradict),
    fewshot=list(snakemake.input.fewshot),
    reader_records=list(snakemake.input.reader_records),
    arch=snakemake.params.arch,
    chat_template_kwargs=snakemake.params.chat_template_kwargs,
    code_mappings=snakemake.params.code_mappings,
    steps=snakemake.params.steps,
    batch_size=snakemake.params.batch_size,
    lr=snakemake.params.lr,
    seed=snakemake.params.seed,
    vocab_size=snakemake.params.vocab_size,
    conflict_tasks=snakemake.params.conflict_tasks,
    conflict_steps=snakemake.params.conflict_steps,
    conflict_weights=snakemake.params.conflict_weights,
    templates=snakemake.params.templates,
    passage_version=snakemake.params.passage_version,
    reader_prompt=snakemake.params.reader_prompt,
    closed_book_prompt=snakemake.params.closed_book_prompt,
    reader_system_message=snakemake.params.reader_system_message,
    out=snakemake.output[0],
)
