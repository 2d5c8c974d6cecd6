"""Rule study2_endpoints: the paper's Tables 6 and 7 in one table.

Reads:  input.estimates (ESTIMATES), input.exploratory (INTERVALS; Table 7's rows, E0 included); params parser.
Writes: output.endpoints (TSV).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_endpoints

log_to_rule_log(snakemake.log[0])
study2_endpoints(estimates=snakemake.input.estimates, exploratory=snakemake.input.exploratory,
                 parser=snakemake.params.parser,
                 endpoints_out=snakemake.output.endpoints)
