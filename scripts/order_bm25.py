"""Rule order_bm25: reads POOLS, RETRIEVED (claim texts) and UNITS; writes
results/retrieval/{dataset}/ordering_bm25.parquet (ORDERING, rank_bm25 BM25Okapi within each pool)."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.retrieval.stage import order_bm25

order_bm25(snakemake.input.pools, snakemake.input.retrieved, snakemake.input.units,
           snakemake.output.ordering, **snakemake.params.bm25)
