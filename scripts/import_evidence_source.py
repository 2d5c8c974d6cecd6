"""Rule import_evidence_source: reads a provider submission (JSON lines), the provider split's
claims, UNITS and the budget tokenizers; writes results/evidence/{dataset}/provider_{name}.parquet
(EVIDENCE, budget 'full', unresolved ids counted) and a summary JSON."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.evidence.stage import import_evidence_source

p = snakemake.params
import_evidence_source(snakemake.wildcards.dataset, p.source, snakemake.input.submission,
                       list(snakemake.input.claims), snakemake.input.units, snakemake.output.evidence,
                       dict(p.tokenizers), dict(p.caps), summary_path=snakemake.output.summary)
