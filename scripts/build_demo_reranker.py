"""Rule build_demo_reranker: reads the training dataset's corpus index, training claims and units;
writes the demo's tiny XLM-R cross-encoder (FlagReranker-loadable) to results/models/reranker/."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.retrieval.stage import build_demo_reranker

build_demo_reranker(snakemake.input.index, list(snakemake.input.claims), snakemake.input.units,
                    snakemake.output.model, k=snakemake.params.k, max_units=snakemake.params.max_units,
                    pool_kinds=snakemake.params.pool_kinds, train=dict(snakemake.params.train))
