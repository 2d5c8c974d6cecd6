"""Rule summary_page: write results/report/summary.html and results/report/study1_decomposition.png.

Reads:  the report TSVs of the enabled studies (Study 1 estimates, intervals, unresolved counts;
        Study 2 primary, exploratory and crossed intervals, decision label and criteria, Figure 1's
        PNG, endpoints, controls, control generations, answer accuracy, partition, INVALID rates;
        WikiContradict rates and detection; DiffGR tables), results/report/provenance.tsv,
        input.accounted_* (the tables of each system under config `external`, titled by
        params.accounted_titles) and input.extra (tables shown whole, titled by
        params.extra_titles). Absent inputs: None.
Params: the Study 1 bootstrap's family size and alpha, the unresolved scope, the Study 2 parser
        and sources (config values, see evidence_ledger.report.stage.summary_page).
Writes: output.html (self-contained summary page, figures embedded), output.decomposition (PNG).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.report.stage import summary_page

log_to_rule_log(snakemake.log[0])
summary_page(
    study1_estimates=snakemake.input.get("study1_estimates"),
    study1_intervals=snakemake.input.get("study1_intervals"),
    study1_unresolved=snakemake.input.get("study1_unresolved"),
    study2_primary=snakemake.input.get("study2_primary"),
    study2_exploratory=snakemake.input.get("study2_exploratory"),
    study2_crossed=snakemake.input.get("study2_crossed"),
    decision_label=snakemake.input.get("decision_label"),
    decision_criteria=snakemake.input.get("decision_criteria"),
    forest_plot=snakemake.input.get("forest_plot"),
    study2_endpoints=snakemake.input.get("study2_endpoints"),
    study2_controls=snakemake.input.get("study2_controls"),
    control_generations=snakemake.input.get("control_generations"),
    answer_accuracy=snakemake.input.get("answer_accuracy"),
    partition=snakemake.input.get("partition"),
    invalid_rates=snakemake.input.get("invalid_rates"),
    wikicontradict_rates=snakemake.input.get("wikicontradict_rates"),
    wikicontradict_detection=snakemake.input.get("wikicontradict_detection"),
    diffgr=snakemake.input.get("diffgr"),
    diffgr_files=snakemake.input.get("diffgr_files"),
    provenance=snakemake.input.provenance,
    study1_family_size=snakemake.params.study1_family_size,
    study1_alpha=snakemake.params.study1_alpha,
    unresolved_scope=snakemake.params.unresolved_scope,
    study2_parser=snakemake.params.study2_parser,
    study2_sources=list(snakemake.params.study2_sources),
    extra_tables=list(snakemake.input.extra),
    extra_titles=list(snakemake.params.extra_titles),
    accounted_estimates=list(snakemake.input.accounted_estimates),
    accounted_intervals=list(snakemake.input.accounted_intervals),
    accounted_metrics=list(snakemake.input.accounted_answer_metrics),
    accounted_titles=list(snakemake.params.accounted_titles),
    html_out=snakemake.output.html,
    decomposition_out=snakemake.output.decomposition,
)
