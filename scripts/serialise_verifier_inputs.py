"""Rule serialise_verifier_inputs: verifier inputs (<= 512 tokens) of one split per source.

Reads:  input.claims (CLAIMS of the split), input.units (UNITS), input.evidence (provider
        EVIDENCE tables, in params.sources order), the base model's tokenizer (params.base: Hub
        id + revision, or the demo directory); the caps of config verifier.input as named params.
Writes: output[0] (VERIFIER_INPUTS); log.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.verifier.stage import serialise_verifier_inputs

log_to_rule_log(snakemake.log[0])
p = snakemake.params
serialise_verifier_inputs(
    claims=snakemake.input.claims, units=snakemake.input.units, evidence=list(snakemake.input.evidence),
    verifier_inputs=snakemake.output[0], split=snakemake.wildcards.split, sources=list(p.sources),
    base=dict(p.base), max_total_tokens=p.max_total_tokens, max_claim_tokens=p.max_claim_tokens,
    max_units=p.max_units, max_candidates=p.max_candidates, max_unit_tokens=p.max_unit_tokens,
    include_context=p.include_context, context_separator=p.context_separator, unit_separator=p.unit_separator,
    sentinel=p.sentinel, repeats_take_window_slots=p.repeats_take_window_slots,
)
