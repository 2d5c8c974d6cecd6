"""Rule control_generations: control generations after reuse of identical requests, exactly.

Reads:  input.requests (REQUESTS, one per model x dataset), input.reference (optional).
Writes: output.requests (TSV: unique new requests per model x dataset x condition, total beside
        the paper's value when the run's control design, params.design, is the one it counts).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import control_generations

log_to_rule_log(snakemake.log[0])
control_generations(requests=list(snakemake.input.requests), design=snakemake.params.design, reference=snakemake.input.get("reference"),
                    requests_out=snakemake.output.requests)
