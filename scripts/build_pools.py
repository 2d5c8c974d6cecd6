"""Rule build_pools: RETRIEVED + UNITS -> results/retrieval/{dataset}/pools.parquet (POOLS: at most
max_units units of the retrieved documents per claim, in pool order)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.retrieval.stage import build_pools

log_to_rule_log(snakemake.log[0])
build_pools(retrieved=snakemake.input.retrieved, units=snakemake.input.units, pools=snakemake.output.pools,
            max_units=snakemake.params.max_units, pool_kinds=list(snakemake.params.pool_kinds))
