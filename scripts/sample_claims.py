"""Rule sample_claims: CLAIMS of the configured split (for FEVEROUS with reserved ids also the
pool's FAMILIES and the reserved-id file) -> results/sampling/{dataset}/sample.parquet (CLAIMS)
and sample_summary.tsv (key/value)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.sampling.stage import sample_claims

log_to_rule_log(snakemake.log[0])
sample_claims(claims=snakemake.input.claims, families=snakemake.input.get("families"),
              reserved=snakemake.input.get("reserved"), sample=snakemake.output.sample,
              summary=snakemake.output.summary, method=snakemake.params.method, salt=snakemake.params.salt,
              n=snakemake.params.n)
