"""Rule export_provider_submissions: an ORDERING and the provider split's claims ->
results/evidence/{dataset}/submissions/external_{name}.jsonl in the FEVEROUS submission format
({"id": claim_id, "predicted_evidence": [unit ids]})."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.evidence.stage import export_provider_submissions

log_to_rule_log(snakemake.log[0])
export_provider_submissions(ordering=snakemake.input.ordering, claims=list(snakemake.input.claims),
                            submission=snakemake.output.submission, max_ids=snakemake.params.max_ids)
