"""Rule study2_forest_plot: Figure 1, the primary contrasts with Bonferroni intervals.

Reads:  snakemake.input.intervals (INTERVALS, primary family); params.bound (the +/- band).
Writes: output.png, output.svg; log to snakemake.log[0].
"""
import logging

from evidence_ledger.decisions import run_forest_plot

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
run_forest_plot(intervals_path=snakemake.input.intervals, params={"bound": snakemake.params.bound},
                outputs=dict(snakemake.output.items()))
logging.info("forest plot written to %s and %s", snakemake.output.png, snakemake.output.svg)
