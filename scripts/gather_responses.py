"""Rule gather_responses: concatenate the shard responses of one model x dataset.

Reads:  input.requests (REQUESTS), input.shards (RESPONSES per shard).
Writes: output.responses (RESPONSES, one row per unique request, sorted by request_id; fails
        if a planned request is missing or answered twice); log.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.generation.stage import gather_responses

log_to_rule_log(snakemake.log[0])
gather_responses(requests=snakemake.input.requests, shards=list(snakemake.input.shards),
                 responses=snakemake.output.responses)
