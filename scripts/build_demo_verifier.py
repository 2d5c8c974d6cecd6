"""Rule build_demo_verifier: the demo's tiny DeBERTa-v2 verifier base model, built locally.

Reads:  snakemake.input.claims (FEVEROUS training CLAIMS), snakemake.input.units (UNITS);
        params.spec (config verifier.demo_model: sizes, vocabulary size, seed).
Writes: snakemake.output[0] (a model directory: model.safetensors, config.json, tokenizer
        files; MNLI-named 3-way head); log to snakemake.log[0].
"""
import logging

from evidence_ledger.verifier.tiny_model import TinyVerifierSpec, build_demo_verifier

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
spec = TinyVerifierSpec(**snakemake.params.spec)
build_demo_verifier(snakemake.input.claims, snakemake.input.units, snakemake.output[0], spec)
logging.info("built tiny verifier %s into %s", spec, snakemake.output[0])
