"""Rule study1_bootstrap: paired claim bootstrap of the Study 1 components.

Reads:  snakemake.input.counts (CLUSTER_COUNTS of study1_accounting), input.reference (optional);
        params.settings (config accounting.study1 + bootstrap settings, batch size).
Writes: output.intervals (INTERVALS), output.summary (TSV); log to snakemake.log[0].
"""
import logging

from evidence_ledger.bootstrap import run_study1_bootstrap

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
run_study1_bootstrap(counts_path=snakemake.input.counts, reference_path=snakemake.input.get("reference"),
                     params=snakemake.params.settings, outputs=dict(snakemake.output.items()),
                     log=logging.getLogger("study1_bootstrap"))
