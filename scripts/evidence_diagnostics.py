"""Rule evidence_diagnostics: the claims, RETRIEVED, POOLS and every EVIDENCE table of the dataset ->
results/evidence/{dataset}/diagnostics.tsv (gold recall of pools and of each source x budget,
eligibility-style coverage, cap hits, retrieval misses)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.evidence.stage import evidence_diagnostics

log_to_rule_log(snakemake.log[0])
evidence_diagnostics(claims=list(snakemake.input.claims), retrieved=snakemake.input.retrieved,
                     pools=snakemake.input.pools, evidence=list(snakemake.input.evidence),
                     tsv=snakemake.output.tsv, dataset=snakemake.params.dataset,
                     per_document=snakemake.params.per_document,
                     needs_no_evidence=list(snakemake.params.needs_no_evidence))
