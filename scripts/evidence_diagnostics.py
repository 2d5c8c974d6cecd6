"""Rule evidence_diagnostics: reads the claims, RETRIEVED, POOLS and every EVIDENCE table of the
dataset; writes results/evidence/{dataset}/diagnostics.tsv (gold recall of pools and of each
source x budget, eligibility-style coverage, cap hits, retrieval misses)."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.evidence.stage import evidence_diagnostics

evidence_diagnostics(snakemake.wildcards.dataset, list(snakemake.input.claims), snakemake.input.retrieved,
                     snakemake.input.pools, list(snakemake.input.evidence), snakemake.output.tsv,
                     snakemake.params.per_document, snakemake.params.needs_no_evidence)
