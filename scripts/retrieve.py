"""Rule retrieve: reads the corpus index, the claims to retrieve for (Study 2 sample and configured
extra splits) and the units (to find gold pages); writes results/retrieval/{dataset}/retrieved.parquet
(RETRIEVED: top-k documents per claim with retrieval misses)."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.retrieval.stage import retrieve

retrieve(snakemake.input.index, list(snakemake.input.claims), snakemake.input.units,
         snakemake.output.retrieved, k=snakemake.params.k)
