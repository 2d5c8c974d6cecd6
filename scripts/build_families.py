"""Rule build_families: CLAIMS tables of the family population (e.g. FEVEROUS dev + pool) ->
results/families/{dataset}/families.parquet (FAMILIES), family_links.parquet (FAMILY_LINKS) and
families_summary.tsv (family size -> count, links per reason)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.sampling.stage import build_families

log_to_rule_log(snakemake.log[0])
build_families(claims=list(snakemake.input.claims), families=snakemake.output.families,
               links=snakemake.output.links, summary=snakemake.output.summary, dataset=snakemake.params.dataset,
               negation_tokens=list(snakemake.params.negation_tokens), top_k=snakemake.params.top_k,
               threshold=snakemake.params.threshold)
