"""Rule summary_page: write results/report/summary.html and results/report/study1_decomposition.png.

Reads:  the headline report TSVs of the enabled studies (Study 1 estimates and intervals; Study 2
        primary and crossed intervals, decision label and criteria, Figure 1's PNG;
        WikiContradict rates and detection; DiffGR tables), results/report/provenance.tsv and
        input.extra (tables shown whole, titled by params.extra_titles). Absent inputs: None.
Writes: output.html (self-contained summary page, figures embedded), output.decomposition (PNG).
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.report.stage import summary_page

log_to_rule_log(snakemake.log[0])
summary_page(
    study1_estimates=snakemake.input.get("study1_estimates"),
    study1_intervals=snakemake.input.get("study1_intervals"),
    study2_primary=snakemake.input.get("study2_primary"),
    study2_crossed=snakemake.input.get("study2_crossed"),
    decision_label=snakemake.input.get("decision_label"),
    decision_criteria=snakemake.input.get("decision_criteria"),
    forest_plot=snakemake.input.get("forest_plot"),
    wikicontradict_rates=snakemake.input.get("wikicontradict_rates"),
    wikicontradict_detection=snakemake.input.get("wikicontradict_detection"),
    diffgr=snakemake.input.get("diffgr"),
    diffgr_files=snakemake.input.get("diffgr_files"),
    provenance=snakemake.input.provenance,
    extra_tables=list(snakemake.input.extra),
    extra_titles=list(snakemake.params.extra_titles),
    html_out=snakemake.output.html,
    decomposition_out=snakemake.output.decomposition,
)
