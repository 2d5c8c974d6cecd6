"""Rule build_demo_reranker: reads each training dataset's corpus index, training claims and units;
writes the demo's tiny XLM-R cross-encoder (FlagReranker-loadable) to results/models/reranker/."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.retrieval.stage import build_demo_reranker

claims = list(snakemake.input.claims)
sources, at = [], 0
for i, src in enumerate(snakemake.params.sources):
    sources.append({"index": snakemake.input.index[i], "units": snakemake.input.units[i],
                    "claims": claims[at:at + src["n_claims"]], "k": src["k"]})
    at += src["n_claims"]
build_demo_reranker(sources, snakemake.output.model, max_units=snakemake.params.max_units,
                    pool_kinds=snakemake.params.pool_kinds, train=dict(snakemake.params.train))
