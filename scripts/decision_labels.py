"""Rule decision_labels: SPEC 5 decision label and the criteria each primary contrast met.

Reads:  snakemake.input.intervals (INTERVALS, primary family), input.estimates (ESTIMATES, for
        per-seed signs), input.reference (optional); params.settings (thresholds, models,
        parser, seed replicates).
Writes: output.criteria (DECISION_CRITERIA) + criteria_tsv, output.label (DECISION_LABEL) +
        label_tsv; log to snakemake.log[0].
"""
import logging

from evidence_ledger.decisions import run_decision_labels

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
run_decision_labels(intervals_path=snakemake.input.intervals, estimates_path=snakemake.input.estimates,
                    reference_path=snakemake.input.get("reference"), params=snakemake.params.settings,
                    outputs=dict(snakemake.output.items()), log=logging.getLogger("decision_labels"))
