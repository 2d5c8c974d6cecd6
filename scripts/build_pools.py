"""Rule build_pools: reads RETRIEVED and UNITS; writes results/retrieval/{dataset}/pools.parquet
(POOLS: at most max_units units of the retrieved documents per claim, in pool order)."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.retrieval.stage import build_pools

build_pools(snakemake.input.retrieved, snakemake.input.units, snakemake.output.pools,
            max_units=snakemake.params.max_units, pool_kinds=snakemake.params.pool_kinds)
