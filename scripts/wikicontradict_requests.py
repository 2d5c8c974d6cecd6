"""Rule wikicontradict_requests: WikiContradict instances -> one model's prompt requests.

Reads:  input.instances (WIKICONTRADICT_INSTANCES); params model, templates, max_new_tokens,
        seed, passage_version.
Writes: output.requests (WC_REQUESTS); the log lists the instances skipped per template.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.wikicontradict.stage import wikicontradict_requests

log_to_rule_log(snakemake.log[0])
wikicontradict_requests(
    instances=snakemake.input.instances, model=snakemake.params.model, templates=list(snakemake.params.templates),
    max_new_tokens=snakemake.params.max_new_tokens, seed=snakemake.params.seed,
    passage_version=snakemake.params.passage_version, out=snakemake.output.requests,
)
