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
    return {"traces": ACCOUNTING("pattern_traces"),
            "claims": [SAMPLING("sample", dataset=d) for d in datasets],
            "evidence": [EVIDENCE("evidence", dataset=d) for d in datasets],
            "units": [INGEST("units", dataset=d) for d in datasets]}


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
    inputs = {"provenance": REPORT("provenance"),
              "extra_tables": [path for _, path in summary_extra_tables()]}
    if enabled("study1"):
        inputs["study1_estimates"] = ACCOUNTING("study1_estimates_tsv")
        inputs["study1_intervals"] = ACCOUNTING("study1_intervals_tsv")
        inputs["study1_unresolved"] = VERIFIER("unresolved_tsv")
    if enabled("study2"):
        inputs["study2_primary"] = ACCOUNTING("intervals_tsv", family="primary")
        inputs["study2_crossed"] = ACCOUNTING("intervals_tsv", family="crossed")
        inputs["decision_label"] = ACCOUNTING("decision_label_tsv")
        inputs["decision_criteria"] = ACCOUNTING("decision_criteria_tsv")
        inputs["forest_plot"] = ACCOUNTING("forest_png")
        inputs["study2_exploratory"] = ACCOUNTING("intervals_tsv", family="exploratory")
        inputs["study2_endpoints"] = ACCOUNTING("analysis_tsv", analysis="endpoints")
        inputs["study2_controls"] = ACCOUNTING("analysis_tsv", analysis="controls")
        inputs["control_generations"] = ACCOUNTING("analysis_tsv", analysis="control_generations")
        inputs["answer_accuracy"] = ACCOUNTING("analysis_tsv", analysis="answer_accuracy")
        inputs["partition"] = ACCOUNTING("partition_tsv")
        inputs["invalid_rates"] = ACCOUNTING("invalid_rates_tsv")
    if enabled("wikicontradict"):
        inputs["wikicontradict_rates"] = WIKICONTRADICT("rates")
        inputs["wikicontradict_detection"] = WIKICONTRADICT("detection")
    if enabled("diffgr"):
        inputs["diffgr"] = DIFFGR("diffgr")
        if config["diffgr"]["reader_run_files"]:
            inputs["diffgr_files"] = DIFFGR("reader_files")
    for key, name in (("estimates", "estimates_tsv"), ("intervals", "intervals_tsv"), ("metrics", "answer_metrics_tsv")):
        inputs[f"accounted_{key}"] = [ACCOUNT(name, system=s) for s in ACCOUNTED_SYSTEMS]
    return inputs


def items_page_inputs(wildcards):
    """Named inputs of items_page: the ITEMS (``item_tables``) and ITEM_TEXTS (``item_text_tables``)
    tables of every accounting the run writes (Study 1 and Study 2 where enabled, then each system
    under ``external``), aligned: ``item_text_tables[i]`` is written beside ``item_tables[i]``."""
    studies = [study for study in ("study1", "study2") if enabled(study)]
    return {"item_tables": [ACCOUNTING("items", study=s) for s in studies]
                           + [ACCOUNT("items", system=s) for s in ACCOUNTED_SYSTEMS],
            "item_text_tables": [ACCOUNTING("item_texts", study=s) for s in studies]
                                + [ACCOUNT("item_texts", system=s) for s in ACCOUNTED_SYSTEMS]}


# The report tables whose numbers go into results/report/ledger.json: one line per table,
# (study switch, key, path, kind of table (report.ledger), study, rule that writes it).
LEDGER_TABLES = (
    ("study1", "study1_estimates", ACCOUNTING("study1_estimates_tsv"), "estimates", "study1",
     "study1_accounting"),
    ("study1", "study1_intervals", ACCOUNTING("study1_intervals_tsv"), "intervals", "study1",
     "study1_bootstrap"),
    ("study1", "study1_answer_metrics", ACCOUNTING("study1_answer_metrics_tsv"), "intervals", "study1",
     "study1_answer_metrics"),
    ("study2", "study2_primary", ACCOUNTING("intervals_tsv", family="primary"), "intervals", "study2",
     "study2_bootstrap"),
    ("study2", "study2_exploratory", ACCOUNTING("intervals_tsv", family="exploratory"), "intervals", "study2",
     "study2_bootstrap"),
    ("study2", "study2_crossed", ACCOUNTING("intervals_tsv", family="crossed"), "intervals", "study2",
     "study2_bootstrap"),
    ("study2", "decision_criteria", ACCOUNTING("decision_criteria_tsv"), "criteria", "study2",
     "decision_labels"),
    ("study2", "decision_label", ACCOUNTING("decision_label_tsv"), "label", "study2",
     "decision_labels"),
    ("wikicontradict", "wikicontradict_rates", WIKICONTRADICT("rates"), "wikicontradict_rates",
     "wikicontradict", "wikicontradict_metrics"),
    ("wikicontradict", "wikicontradict_detection", WIKICONTRADICT("detection"),
     "wikicontradict_detection", "wikicontradict", "wikicontradict_metrics"),
    ("diffgr", "diffgr", DIFFGR("diffgr"), "diffgr", "diffgr", "diffgr_score"),
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
            sources[f"account_{system}_{name}"] = {"path": ACCOUNT(f"{name}_tsv", system=system), "kind": kind,
                                                   "study": "study1", "rule": "account_system", "inputs": files}
    return sources


def ledger_dependencies(wildcards):
    """The ledger's tables and every file the tables' rules read (the ledger hashes them, as
    ``params.sources`` names them)."""
    sources = ledger_sources()
    return [s["path"] for s in sources.values()] + sorted({f for s in sources.values() for f in s["inputs"]})


def report_final_outputs():
    targets = [REPORT("provenance"), REPORT("summary"), REPORT("ledger"), REPORT("items")]
    if enabled("study2"):
        targets.append(REPORT("claim_traces"))
    return targets


FINAL_OUTPUTS["report"] = report_final_outputs


report: "../report/workflow.rst"
