"""Rule parse_responses: strict and lenient labels for every saved response.

Reads:  input.requests (REQUESTS), input.responses (RESPONSES); params.code_mappings
        (config generation.code_mappings).
Writes: output.parsed (PARSED, one row per request row, raw response kept), output.failures
        (TSV: model, dataset, format, n, strict/lenient INVALID counts and rates); log.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.generation.stage import parse_responses

log_to_rule_log(snakemake.log[0])
parse_responses(requests=snakemake.input.requests, responses=snakemake.input.responses,
                parsed=snakemake.output.parsed, failures=snakemake.output.failures,
                code_mappings=dict(snakemake.params.code_mappings))
