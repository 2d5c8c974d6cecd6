"""Rule wikicontradict_generate: prompt requests -> verbatim responses (cached backend).

Reads:  snakemake.input.requests (WC_REQUESTS), snakemake.input.model_dir when the model is
        built locally; params model, model_cfg, generation (backend, backend_options,
        batch_size), cache_dir.
Writes: snakemake.output.responses (WC_RESPONSES); response-cache shards under cache_dir;
        log to snakemake.log[0].
"""
import logging

from evidence_ledger.conflict.wikicontradict_run import run_wikicontradict_generate

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
p = snakemake.params
n = run_wikicontradict_generate(
    snakemake.input.requests, snakemake.output.responses, p.model, p.model_cfg, p.generation["backend"],
    p.generation["backend_options"], p.cache_dir, p.generation["batch_size"],
    local_dir=snakemake.input.get("model_dir"),
)
logging.info("model %s: %d responses", p.model, n)
