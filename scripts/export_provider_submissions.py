"""Rule export_provider_submissions: reads an ORDERING and the provider split's claims; writes
results/evidence/{dataset}/submissions/provider_{name}.jsonl in the FEVEROUS submission format
({"id": claim_id, "predicted_evidence": [unit ids]})."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.evidence.stage import export_provider_submissions

export_provider_submissions(snakemake.input.ordering, list(snakemake.input.claims),
                            snakemake.output.submission, max_ids=snakemake.params.max_ids)
