# Input functions, constants and the target hook of the 'accounting' stage; its rules are in
# accounting.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

def accounting_reference_inputs():
    """The paper reference-values file (``accounting.reference_values``, repo-relative) when set."""
    path = config["accounting"].get("reference_values")
    return {"reference": str(REPO_ROOT / path)} if path else {}


def study2_panel_names():
    """(datasets, models) of Study 2: ``generation.datasets`` x ``generation.models`` (config order)."""
    gen = config.get("generation") or {}
    return list(gen.get("datasets", [])), list(gen.get("models", []))


def study1_checkpoints():
    """Study 1 replicate indices: 1..number of ``verifier.checkpoint_seeds``."""
    return list(range(1, len(config["verifier"]["checkpoint_seeds"]) + 1))


def study2_accounting_inputs():
    """Named inputs of study2_accounting: answers (dataset-major x models), evidence, relevant,
    families (per dataset) and the reference file."""
    datasets, models = study2_panel_names()
    inputs = {
        "answers": [f"results/scoring/{m}/{d}/answer_indicators.parquet" for d in datasets for m in models],
        "evidence": [f"results/scoring/{d}/evidence_indicators.parquet" for d in datasets],
        "relevant": [f"results/scoring/{d}/relevant.parquet" for d in datasets],
        "families": [f"results/families/{d}/families.parquet" for d in datasets],
    }
    inputs.update(accounting_reference_inputs())
    return inputs


def study2_bootstrap_setting(family, key):
    """``accounting.bootstrap.<family>.<key>`` (draws, alpha) of a comparison family; its
    ``family_size`` is derived from the family's comparisons (config_checks.study2_family_size,
    which the start checks compare with a stated one)."""
    if key == "family_size":
        from evidence_ledger.config_checks import study2_family_size

        return study2_family_size(config, family)
    return config["accounting"]["bootstrap"][family][key]


def analysed_control_sources():
    """Control evidence sources of ``generation.controls.sources`` (swap / reversed once per
    primary source: ``swap_bm25``, ...)."""
    from evidence_ledger.vocabulary import control_sources

    gen = config.get("generation") or {}
    return control_sources((gen.get("controls") or {}).get("sources", []), gen.get("sources", []))


def alternative_code_mappings():
    """Names of ``generation.code_mappings.alternatives`` (config order)."""
    return list(((config.get("generation") or {}).get("code_mappings") or {}).get("alternatives") or {})


def control_generation_inputs():
    """The REQUESTS table of every Study 2 model x dataset (dataset-major)."""
    datasets, models = study2_panel_names()
    return [f"results/generation/{m}/{d}/requests.parquet" for d in datasets for m in models]


def study2_parsers():
    """The primary parser, then the sensitivity parsers."""
    return [ACC2["parser"]] + [p for p in ACC2.get("sensitivity_parsers", []) if p != ACC2["parser"]]


from evidence_ledger.vocabulary import STUDY2_FAMILIES as STUDY2_BOOTSTRAP_FAMILIES
STUDY2_ANALYSES = ("controls", "control_generations", "answer_accuracy", "parser_sensitivity", "endpoints", "design",
                   "populations")
ACC1 = config["accounting"]["study1"]
ACC2 = config["accounting"]["study2"]
ACC_BOOT = config["accounting"]["bootstrap"]
ACC_DECISION = config["accounting"]["decision"]
ACC_CONTROLS = config["accounting"]["controls"]


def accounting_final_outputs():
    targets = []
    if enabled("study1"):
        targets += ["results/accounting/study1/estimates.tsv", "results/accounting/study1/intervals.tsv"]
    if enabled("study2"):
        targets += [f"results/accounting/study2/intervals_{f}.tsv" for f in STUDY2_BOOTSTRAP_FAMILIES]
        targets += ["results/accounting/study2/decision_label.tsv", "results/accounting/study2/forest_primary.png",
                    "results/accounting/study2/pattern_examples.tsv", "results/accounting/study2/invalid_rates.tsv"]
        targets += [f"results/accounting/study2/{n}.tsv" for n in STUDY2_ANALYSES]
    if enabled("study1"):
        targets += ["results/accounting/study1/answer_metrics.tsv"]
    return targets


FINAL_OUTPUTS["accounting"] = accounting_final_outputs
