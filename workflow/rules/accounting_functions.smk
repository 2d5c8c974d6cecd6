# Input functions, constants, shared parameter blocks and the target hook of the 'accounting'
# stage; its rules are in accounting.smk, which includes this file first (Snakemake's linter
# keeps functions and rules in separate files).

ACC1 = config["accounting"]["study1"]
ACC2 = config["accounting"]["study2"]
ACC_BOOT = config["accounting"]["bootstrap"]
ACC_DECISION = config["accounting"]["decision"]
ACC_CONTROLS = config["accounting"]["controls"]
# The Study 2 panel: generation.datasets x generation.models, in config order
STUDY2_DATASETS = list(config["generation"]["datasets"])
STUDY2_MODELS = list(config["generation"]["models"])


def accounting_report(name, caption, **wildcards):
    """A report TSV/figure of an accounting rule (``ACCOUNTING(name, **wildcards)``) with caption
    ``workflow/report/<caption>.rst``, shown under Accounting > Study 1 / Study 2 (its folder)."""
    path = ACCOUNTING(name, **wildcards)
    return report_output(path, caption, "Accounting", "Study 1" if "study1" in Path(path).parts else "Study 2")


def accounting_reference_inputs():
    """The paper reference-values file (``accounting.reference_values``; the workflow's own when the
    defaults set it) when set."""
    path = config["accounting"]["reference_values"]
    return {"reference": input_path("accounting.reference_values")} if path else {}


def study1_checkpoints():
    """Study 1 replicate indices: 1..number of ``verifier.checkpoint_seeds``."""
    return list(range(1, len(config["verifier"]["checkpoint_seeds"]) + 1))


from evidence_ledger.run.config_checks import study2_family_size


# --- Study 2 inputs, keyed by dataset (and model) --------------------------------------

STUDY2_FILES = {
    # per dataset x model
    "answers": SCORING("answer_indicators"),
    "requests": GENERATION("requests"),
    "parsed": GENERATION("parsed"),
    # per dataset
    "evidence": SCORING("evidence_indicators"),
    "relevant": SCORING("relevant"),
    "families": SAMPLING("families"),
    "samples": SAMPLING("sample"),
    "sample_summaries": SAMPLING("sample_summary"),
    "evidence_texts": EVIDENCE("evidence"),
}


def study2_inputs(*names):
    """The Study 2 tables ``names`` (keys of STUDY2_FILES) as named input lists in panel order: one
    per dataset of ``generation.datasets``, or, for the per-model tables ``answers`` and
    ``requests``, one per dataset x model, dataset-major with the models in config order."""
    out = {}
    for name in names:
        pattern = STUDY2_FILES[name]
        out[name] = [pattern.format(dataset=d, model=m) for d in STUDY2_DATASETS for m in STUDY2_MODELS] \
            if "{model}" in pattern else [pattern.format(dataset=d) for d in STUDY2_DATASETS]
    return out


# --- shared parameter blocks ------------------------------------------------------------


def study2_panel():
    """The Study 2 design the panel rules share: datasets, models and the factor levels (sources,
    budgets, formats: level 0, level 1) of ``generation``, the sampled replicates of ``accounting.study2``."""
    g = config["generation"]
    return {"datasets": STUDY2_DATASETS, "models": STUDY2_MODELS, "sources": g["sources"], "budgets": g["budgets"],
            "formats": g["formats"], "seed_replicates": ACC2["seed_replicates"]}


def bootstrap_params(family):
    """Draw protocol of one interval family (docs/accounting.md): ``draws``, ``alpha``,
    ``family_size``, ``seed`` and ``batch_size``.

    ``study1``: ``accounting.study1.bootstrap``; ``primary`` / ``exploratory`` / ``crossed``:
    ``accounting.bootstrap.<family>``, whose ``family_size`` is derived from the family's
    comparisons (``config_checks.study2_family_size``; the start checks refuse a stated one that
    disagrees); ``controls``: the primary draws at the pointwise ``accounting.controls`` alpha and
    family size."""
    if family == "study1":
        b = ACC1["bootstrap"]
        return {"draws": b["draws"], "alpha": b["alpha"], "family_size": b["family_size"], "seed": b["seed"],
                "batch_size": ACC_BOOT["batch_size"]}
    if family == "controls":
        b = ACC_BOOT["primary"]
        return {"draws": b["draws"], "alpha": ACC_CONTROLS["alpha"], "family_size": ACC_CONTROLS["family_size"],
                "seed": ACC_BOOT["seed"], "batch_size": ACC_BOOT["batch_size"]}
    b = ACC_BOOT[family]
    return {"draws": b["draws"], "alpha": b["alpha"], "family_size": study2_family_size(config, family),
            "seed": ACC_BOOT["seed"], "batch_size": ACC_BOOT["batch_size"]}


def study1_design():
    """Study 1's panel: dataset, system (``verifier.name``), parser, sources and checkpoints."""
    return {"dataset": config["verifier"]["dataset"], "system": config["verifier"]["name"],
            "parser": ACC1["parser"], "sources": list(config["verifier"]["sources"]),
            "checkpoints": study1_checkpoints()}


def control_design_of_config():
    """``(ordering sources, alternative code mappings)`` the controls are asked from
    (``generation.controls.design``; ``vocabulary.control_design``)."""
    from evidence_ledger.vocabulary import control_design

    gen = config["generation"]
    return control_design(gen["controls"]["design"], gen["sources"], list(gen["code_mappings"]["alternatives"] or {}))


def analysed_control_sources():
    """Control evidence sources of ``generation.controls.sources`` (swap / reversed once per
    ordering source of the control design: ``swap_bm25``, ...)."""
    from evidence_ledger.vocabulary import control_sources

    return control_sources(config["generation"]["controls"]["sources"], control_design_of_config()[0])


def control_ordering_sources():
    """Primary sources the per-source controls and the alternative code mappings are asked under."""
    return control_design_of_config()[0]


def alternative_code_mappings():
    """Alternative code mappings the control design asks (config order)."""
    return control_design_of_config()[1]


def study2_parsers():
    """The primary parser, then the sensitivity parsers."""
    return [ACC2["parser"]] + [p for p in ACC2["sensitivity_parsers"] if p != ACC2["parser"]]


from evidence_ledger.vocabulary import STUDY2_FAMILIES as STUDY2_BOOTSTRAP_FAMILIES
STUDY2_ANALYSES = ("controls", "control_generations", "answer_accuracy", "parser_sensitivity", "endpoints", "design",
                   "populations")


def accounting_final_outputs():
    targets = []
    if enabled("study1"):
        targets += [ACCOUNTING("study1_estimates_tsv"), ACCOUNTING("study1_intervals_tsv")]
    if enabled("study2"):
        targets += [ACCOUNTING("intervals_tsv", family=f) for f in STUDY2_BOOTSTRAP_FAMILIES]
        targets += [ACCOUNTING("decision_label_tsv"), ACCOUNTING("forest_png"),
                    ACCOUNTING("pattern_examples_tsv"), ACCOUNTING("invalid_rates_tsv")]
        targets += [ACCOUNTING("analysis_tsv", analysis=n) for n in STUDY2_ANALYSES]
    if enabled("study1"):
        targets += [ACCOUNTING("study1_answer_metrics_tsv"), ACCOUNTING("items", study="study1")]
    if enabled("study2"):
        targets += [ACCOUNTING("items", study="study2")]
    return targets


FINAL_OUTPUTS["accounting"] = accounting_final_outputs
