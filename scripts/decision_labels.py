"""Rule decision_labels: decision label (the paper's Study 2) and the criteria each primary contrast met.

Reads:  input.intervals (INTERVALS, primary family), input.estimates (ESTIMATES, for per-seed
        signs), input.reference (optional); params parser, seed_replicates, models,
        magnitude, min_agreeing_seeds, min_datasets, required_dataset, bound.
Writes: output.criteria (DECISION_CRITERIA) + criteria_tsv, output.label (DECISION_LABEL) + label_tsv.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import decision_labels

log_to_rule_log(snakemake.log[0])
decision_labels(
    intervals=snakemake.input.intervals, estimates=snakemake.input.estimates,
    reference=snakemake.input.get("reference"), parser=snakemake.params.parser,
    seed_replicates=list(snakemake.params.seed_replicates), models=list(snakemake.params.models),
    magnitude=snakemake.params.magnitude, min_agreeing_seeds=snakemake.params.min_agreeing_seeds,
    min_datasets=snakemake.params.min_datasets, required_dataset=snakemake.params.required_dataset,
    bound=snakemake.params.bound, criteria_out=snakemake.output.criteria,
    criteria_tsv_out=snakemake.output.criteria_tsv, label_out=snakemake.output.label,
    label_tsv_out=snakemake.output.label_tsv,
)
