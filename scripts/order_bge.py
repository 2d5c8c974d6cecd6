"""Rule order_bge: reads POOLS, RETRIEVED (claim texts), UNITS and the reranker (local directory or
Hub id + revision); writes results/retrieval/{dataset}/ordering_bge.parquet (ORDERING, FlagReranker)."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.retrieval.reranker import RerankerSpec
from evidence_ledger.retrieval.stage import order_bge

order_bge(snakemake.input.pools, snakemake.input.retrieved, snakemake.input.units,
          snakemake.output.ordering, RerankerSpec(**snakemake.params.spec),
          claims_per_call=snakemake.params.claims_per_call)
