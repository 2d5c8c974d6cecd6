"""Rule study2_forest_plot: Figure 1, the primary contrasts with Bonferroni intervals.

Reads:  input.intervals (INTERVALS, primary family); params.bound (the +/- band).
Writes: output.png, output.svg.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study2_forest_plot

log_to_rule_log(snakemake.log[0])
study2_forest_plot(intervals=snakemake.input.intervals, bound=snakemake.params.bound,
                   png_out=snakemake.output.png, svg_out=snakemake.output.svg)
