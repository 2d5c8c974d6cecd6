"""Rule generation_plan: the planner's table for this run, for the report.

Reads:  the run's config (params.config; the planner reads the run's evidence tables, sample and
        cached answers under params.workdir; params.data_root: the data directory the workflow
        resolved), after every parsed table exists.
Writes: output.tsv (one row per model x dataset x condition, then per-stage and total rows: GPU
        hours beside the compute floor); log (the planner's printed table).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.generation.stage import generation_plan

log_to_rule_log(snakemake.log[0])
generation_plan(config=dict(snakemake.params.config), workdir=snakemake.params.workdir,
                data_root=snakemake.params.data_root, out=snakemake.output.tsv)
