"""Rule order_bm25: POOLS, RETRIEVED (claim texts) and UNITS -> results/retrieval/{dataset}/ordering_bm25.parquet
(ORDERING, rank_bm25 BM25Okapi within each pool)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.retrieval.stage import order_bm25

log_to_rule_log(snakemake.log[0])
order_bm25(pools=snakemake.input.pools, retrieved=snakemake.input.retrieved, units=snakemake.input.units,
           ordering=snakemake.output.ordering, k1=snakemake.params.k1, b=snakemake.params.b,
           epsilon=snakemake.params.epsilon)
