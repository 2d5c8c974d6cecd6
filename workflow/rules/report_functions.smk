# Input functions, constants and the target hook of the 'report' stage; its rules are in
# report.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

from evidence_ledger.models.gpu_fit import generation_jobs


def gpu_fit_model_inputs():
    """The local model directories the GPU-fit table reads its model facts from: those of the
    generation jobs' models, the built reranker and the verifier's base model (built or local)."""
    models = dict.fromkeys(m for _, m in generation_jobs(config) if m in config["models"])
    dirs = [d for m in models for d in model_dir_inputs(m)]
    dirs += reranker_inputs() + verifier_base_inputs()
    return list(dict.fromkeys(dirs))


def trace_datasets():
    """Study 2 datasets whose evidence-only credit changes are traced in the report."""
    return list(STUDY2_DATASETS)


def claim_trace_inputs(wildcards):
    """Named inputs of claim_traces: the traces, and the sample, evidence and units of every
    dataset of :func:`trace_datasets`, in that order."""
    datasets = trace_datasets()
    return {"traces": "results/accounting/study2/pattern_traces.parquet",
            "claims": [f"results/sampling/{d}/sample.parquet" for d in datasets],
            "evidence": [f"results/evidence/{d}/evidence.parquet" for d in datasets],
            "units": [f"results/ingest/{d}/units.parquet" for d in datasets]}


# The report category of the summary page. Snakemake lists categories in alphabetical order
# (localeCompare) and a leading digit sorts before every letter, so the page comes first.
SUMMARY_CATEGORY = "1 Summary (start here)"

# Report TSVs shown whole on the summary page after its curated sections: one line per table,
# (study switch, title, path). Adding a table to the page is adding a line here.
SUMMARY_PAGE_EXTRA_TABLES = ()


def summary_extra_tables():
    """(title, path) of the SUMMARY_PAGE_EXTRA_TABLES whose study is enabled."""
    return [(title, path) for study, title, path in SUMMARY_PAGE_EXTRA_TABLES if enabled(study)]


def summary_page_inputs(wildcards):
    """Named inputs of summary_page: the headline report tables of every enabled study, the
    provenance table and the extra tables (``extra_tables``, in SUMMARY_PAGE_EXTRA_TABLES order)."""
    inputs = {"provenance": "results/report/provenance.tsv",
              "extra_tables": [path for _, path in summary_extra_tables()]}
    if enabled("study1"):
        inputs["study1_estimates"] = "results/accounting/study1/estimates.tsv"
        inputs["study1_intervals"] = "results/accounting/study1/intervals.tsv"
        inputs["study1_unresolved"] = "results/study1/unresolved.tsv"
    if enabled("study2"):
        inputs["study2_primary"] = "results/accounting/study2/intervals_primary.tsv"
        inputs["study2_crossed"] = "results/accounting/study2/intervals_crossed.tsv"
        inputs["decision_label"] = "results/accounting/study2/decision_label.tsv"
        inputs["decision_criteria"] = "results/accounting/study2/decision_criteria.tsv"
        inputs["forest_plot"] = "results/accounting/study2/forest_primary.png"
        inputs["study2_exploratory"] = "results/accounting/study2/intervals_exploratory.tsv"
        inputs["study2_endpoints"] = "results/accounting/study2/endpoints.tsv"
        inputs["study2_controls"] = "results/accounting/study2/controls.tsv"
        inputs["control_generations"] = "results/accounting/study2/control_generations.tsv"
        inputs["answer_accuracy"] = "results/accounting/study2/answer_accuracy.tsv"
        inputs["partition"] = "results/accounting/study2/partition.tsv"
        inputs["invalid_rates"] = "results/accounting/study2/invalid_rates.tsv"
    if enabled("wikicontradict"):
        inputs["wikicontradict_rates"] = "results/wikicontradict/rates.tsv"
        inputs["wikicontradict_detection"] = "results/wikicontradict/detection.tsv"
    if enabled("diffgr"):
        inputs["diffgr"] = "results/diffgr/diffgr.tsv"
        if config["diffgr"]["reader_run_files"]:
            inputs["diffgr_files"] = "results/diffgr/reader_files.tsv"
    for key, name in (("estimates", "estimates"), ("intervals", "intervals"), ("metrics", "answer_metrics")):
        inputs[f"accounted_{key}"] = [f"results/account/{s}/{name}.tsv" for s in ACCOUNTED_SYSTEMS]
    return inputs


# The report tables whose numbers go into results/report/ledger.json: one line per table,
# (study switch, key, path, kind of table (report.ledger), study, rule that writes it).
LEDGER_TABLES = (
    ("study1", "study1_estimates", "results/accounting/study1/estimates.tsv", "estimates", "study1",
     "study1_accounting"),
    ("study1", "study1_intervals", "results/accounting/study1/intervals.tsv", "intervals", "study1",
     "study1_bootstrap"),
    ("study1", "study1_answer_metrics", "results/accounting/study1/answer_metrics.tsv", "intervals", "study1",
     "study1_answer_metrics"),
    ("study2", "study2_primary", "results/accounting/study2/intervals_primary.tsv", "intervals", "study2",
     "study2_bootstrap"),
    ("study2", "study2_exploratory", "results/accounting/study2/intervals_exploratory.tsv", "intervals", "study2",
     "study2_bootstrap"),
    ("study2", "study2_crossed", "results/accounting/study2/intervals_crossed.tsv", "intervals", "study2",
     "study2_bootstrap"),
    ("study2", "decision_criteria", "results/accounting/study2/decision_criteria.tsv", "criteria", "study2",
     "decision_labels"),
    ("study2", "decision_label", "results/accounting/study2/decision_label.tsv", "label", "study2",
     "decision_labels"),
    ("wikicontradict", "wikicontradict_rates", "results/wikicontradict/rates.tsv", "wikicontradict_rates",
     "wikicontradict", "wikicontradict_metrics"),
    ("wikicontradict", "wikicontradict_detection", "results/wikicontradict/detection.tsv",
     "wikicontradict_detection", "wikicontradict", "wikicontradict_metrics"),
    ("diffgr", "diffgr", "results/diffgr/diffgr.tsv", "diffgr", "diffgr", "diffgr_score"),
)
ACCOUNTED_TABLES = (("estimates", "estimates"), ("intervals", "intervals"), ("answer_metrics", "intervals"))


def rule_input_files(rule_name):
    """The input files of a rule whose inputs do not depend on wildcards (flattened, as given)."""
    files = []
    for item in getattr(rules, rule_name).input:
        files += [str(item)] if isinstance(item, str) else [str(x) for x in item]
    return files


def ledger_sources():
    """key -> {path, kind, study, rule, inputs} of every table the ledger reads (LEDGER_TABLES of
    the enabled studies, then each accounted system's tables, written by account_system)."""
    sources = {key: {"path": path, "kind": kind, "study": study, "rule": rule, "inputs": rule_input_files(rule)}
               for switch, key, path, kind, study, rule in LEDGER_TABLES if enabled(switch)}
    for system in ACCOUNTED_SYSTEMS:
        inputs = account_inputs(type("Wildcards", (), {"system": system}))
        files = [inputs["gold"], *inputs["source0"], *inputs["source1"]] + ([inputs["families"]] if "families" in inputs
                                                                           else [])
        for name, kind in ACCOUNTED_TABLES:
            sources[f"account_{system}_{name}"] = {"path": f"results/account/{system}/{name}.tsv", "kind": kind,
                                                   "study": "study1", "rule": "account_system", "inputs": files}
    return sources


def ledger_dependencies(wildcards):
    """The ledger's tables and every file the tables' rules read (the ledger hashes them, as
    ``params.sources`` names them)."""
    sources = ledger_sources()
    return [s["path"] for s in sources.values()] + sorted({f for s in sources.values() for f in s["inputs"]})


def report_final_outputs():
    targets = ["results/report/provenance.tsv", "results/report/summary.html", "results/report/ledger.json"]
    if enabled("study2"):
        targets.append("results/report/claim_traces.tsv")
    return targets


FINAL_OUTPUTS["report"] = report_final_outputs


report: "../report/workflow.rst"
