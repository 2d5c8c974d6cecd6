"""Rule wikicontradict_requests: WikiContradict instances -> one model's prompt requests.

Reads:  snakemake.input.instances (WIKICONTRADICT_INSTANCES); params model, templates,
        max_new_tokens, seed, passage_version.
Writes: snakemake.output.requests (WC_REQUESTS); log to snakemake.log[0] (rows, skipped per template).
"""
import logging

from evidence_ledger.conflict.wikicontradict_run import run_wikicontradict_requests

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
p = snakemake.params
skipped = run_wikicontradict_requests(snakemake.input.instances, snakemake.output.requests, p.model,
                                      list(p.templates), p.max_new_tokens, p.seed, p.passage_version)
logging.info("model %s templates %s; instances skipped per template (template does not apply): %s",
             p.model, list(p.templates), skipped)
