"""Rule study2_bootstrap: family x seed bootstrap of one Study 2 comparison family.

Reads:  snakemake.input.counts (CLUSTER_COUNTS of study2_accounting), input.reference (optional);
        wildcards.family (primary / exploratory / crossed); params.settings (draws, alpha,
        family size, seed, batch size, levels, datasets, models, seed replicates).
Writes: output.intervals (INTERVALS), output.summary (TSV); log to snakemake.log[0].
"""
import logging

from evidence_ledger.bootstrap import run_study2_bootstrap

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
run_study2_bootstrap(counts_path=snakemake.input.counts, reference_path=snakemake.input.get("reference"),
                     family=snakemake.wildcards.family, params=snakemake.params.settings,
                     outputs=dict(snakemake.output.items()), log=logging.getLogger("study2_bootstrap"))
