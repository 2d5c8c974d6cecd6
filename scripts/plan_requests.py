"""Rule plan_requests: the request table of one model x dataset.

Reads:  input.claims (CLAIMS: the Study 2 population), input.evidence (EVIDENCE); the request
        settings of config generation (seeds, sampling, max_new_tokens, formats, sources,
        budgets, code_mappings, controls, shards) as named params.
Writes: output.requests (REQUESTS); log: row counts, unique requests, skipped control rows.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.generation.stage import plan_requests

log_to_rule_log(snakemake.log[0])
p = snakemake.params
plan_requests(
    claims=snakemake.input.claims, evidence=snakemake.input.evidence, requests=snakemake.output.requests,
    model=snakemake.wildcards.model, dataset=snakemake.wildcards.dataset, seeds=list(p.seeds),
    temperature=p.temperature, top_p=p.top_p, top_k=p.top_k, repetition_penalty=p.repetition_penalty,
    max_new_tokens=p.max_new_tokens, formats=list(p.formats), sources=list(p.sources), budgets=list(p.budgets),
    code_mappings=dict(p.code_mappings), control_sources=list(p.control_sources),
    control_budgets=list(p.control_budgets), control_formats=list(p.control_formats),
    control_code_mapping_budgets=list(p.control_code_mapping_budgets), control_design=p.control_design,
    shards=p.shards,
)
