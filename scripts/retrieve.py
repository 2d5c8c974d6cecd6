"""Rule retrieve: the corpus index, the claims to retrieve for (Study 2 sample and configured extra
splits) and UNITS (to find gold pages) -> results/retrieval/{dataset}/retrieved.parquet (RETRIEVED:
top-k documents per claim with retrieval misses)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.retrieval.stage import retrieve

log_to_rule_log(snakemake.log[0])
retrieve(index=snakemake.input.index, claims=list(snakemake.input.claims), units=snakemake.input.units,
         retrieved=snakemake.output.retrieved, k=snakemake.params.k)
