"""Every rule's script: the job calls its rule's stage function, each named input, output and
param as the keyword of the same name (evidence_ledger.jobs.stage_job; docs/LAYOUT.md, "The
calling convention"). Logging goes to the rule's log: file."""
from evidence_ledger.jobs.stage_job import run_rule_job

run_rule_job(snakemake)
