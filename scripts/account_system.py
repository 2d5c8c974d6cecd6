"""Rule account_system: one system of config `external` accounted from its official prediction files.

Reads:  input.gold (the benchmark's official gold file), input.source0 / input.source1 (the runs'
        prediction files, matched by position), input.families (optional); params design
        (benchmark, system, sources, resample_runs), scoring (the official scorers' options),
        bootstrap (draws, alpha, family_size, seed, batch_size).
Writes: output.estimates, estimates_tsv, counts, coverage, intervals, intervals_tsv, metrics_tsv
        (the Study 1 tables, as `python -m evidence_ledger account` writes them).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.account.stage import account_system

log_to_rule_log(snakemake.log[0])
account_system(
    gold=snakemake.input.gold, source0=list(snakemake.input.source0), source1=list(snakemake.input.source1),
    families=snakemake.input.get("families"), **snakemake.params.design, **snakemake.params.scoring,
    **snakemake.params.bootstrap, outputs=dict(snakemake.output.items()),
)
