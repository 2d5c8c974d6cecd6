"""Rule build_demo_reranker: the demo's tiny XLM-R cross-encoder (FlagReranker-loadable).

Reads:  input.index (corpus index directory), input.units (UNITS) per training dataset and
        input.claims (CLAIMS of its training splits, dataset after dataset).
Writes: output.model, a model directory (model.safetensors, config, tokenizer, training_summary.json).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.demo.stage import build_demo_reranker

log_to_rule_log(snakemake.log[0])
build_demo_reranker(
    index=list(snakemake.input.index),
    units=list(snakemake.input.units),
    claims=list(snakemake.input.claims),
    claims_per_dataset=snakemake.params.claims_per_dataset,
    docs_per_claim=snakemake.params.docs_per_claim,
    max_units=snakemake.params.max_units,
    pool_kinds=snakemake.params.pool_kinds,
    train=dict(snakemake.params.train),
    out=snakemake.output.model,
)
