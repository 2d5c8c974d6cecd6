"""Rule build_demo_verifier: the demo's tiny DeBERTa-v2 verifier base model, built locally.

Reads:  input.claims (training CLAIMS of the verifier dataset), input.units (UNITS).
Writes: output[0], a model directory (model.safetensors, config.json, tokenizer files;
        MNLI-named 3-way head).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.demo.stage import build_demo_verifier

log_to_rule_log(snakemake.log[0])
build_demo_verifier(
    claims=snakemake.input.claims,
    units=snakemake.input.units,
    spec=dict(snakemake.params.spec),
    out=snakemake.output[0],
)
