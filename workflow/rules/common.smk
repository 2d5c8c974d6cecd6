"""Helpers shared by all rules: config validation, path resolution, target lists.

Only helper/input functions live here; rules live in the per-stage files. Each stage has
its own section below (ingest, sampling, retrieval, generation, verifier, scoring,
accounting, conflict, report); keep helpers in their stage's section.
"""
import os
from pathlib import Path

import yaml
from snakemake.utils import validate

from evidence_ledger.benchmark_registry import benchmark_names, benchmarks, check_config_benchmarks
from evidence_ledger.benchmark_registry import dataset_wildcard_regex, get_benchmark, load_plugins

validate(config, schema="../schemas/config.schema.yaml")

REPO_ROOT = Path(workflow.basedir)
SCHEMA = yaml.safe_load((REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())

load_plugins(config.get("benchmark_plugins") or [])
check_config_benchmarks(config, SCHEMA["properties"]["data"]["properties"])


# {dataset} is a registered benchmark wherever a rule does not constrain it itself
wildcard_constraints:
    dataset=dataset_wildcard_regex(),


def _resolve_inside(root_key, relpath):
    """Resolve ``relpath`` under ``config[root_key]`` and refuse paths that escape it."""
    root = Path(config[root_key])
    if not root.is_absolute():
        root = REPO_ROOT / root
    root = root.resolve()
    path = (root / relpath).resolve()
    if path != root and root not in path.parents:
        raise ValueError(
            f"config: path {relpath!r} resolves to {path}, outside {root_key}={root}; "
            f"paths in the config must stay inside the directory you named"
        )
    return str(path)


def data_path(relpath):
    """A dataset file named in config, resolved inside ``data_root``."""
    return _resolve_inside("data_root", relpath)


def generation_cache_dir(model):
    """The response cache of one model (config ``generation.cache_dir``), shared by every rule
    that generates (Study 2 generation, WikiContradict, DiffGR, the judge)."""
    root = (config.get("generation") or {}).get("cache_dir", "results/cache/generation")
    return f"{root}/{model}"


def generation_conda_env():
    """Conda env of the rules that run a generation backend: vLLM on GPU, else the CPU env."""
    return "../../envs/gpu-vllm.yaml" if config["generation"].get("backend") == "vllm" else "../../envs/cpu.yaml"


FINAL_OUTPUTS = {}  # stage name -> function returning a list of targets; stages register here


def get_final_output():
    """All `rule all` targets, derived from the config switches through each stage's hook."""
    targets = []
    for name, fn in FINAL_OUTPUTS.items():
        targets.extend(fn())
    return targets


def enabled(study):
    return bool(config["studies"].get(study, False))


# --- generation ---------------------------------------------------------------------


# Shared with the conflict stage (its model-loading rules and conflict_generation_params), so
# they stay here; the generation stage's own helpers are at the top of generation.smk.


def generation_backend_options(model=None):
    """Backend constructor options; ``models.<model>.tensor_parallel_size`` overrides the
    global ``generation.tensor_parallel_size`` for that model (e.g. a 70B judge on 2+ GPUs)."""
    g = config["generation"]
    opts = {"batch_size": g["batch_size"]}
    if g["backend"] == "vllm":
        tp = g["tensor_parallel_size"]
        if model is not None:
            tp = config["models"].get(model, {}).get("tensor_parallel_size", tp)
        opts.update(enable_prefix_caching=g["enable_prefix_caching"], tensor_parallel_size=tp)
        opts.update(g.get("vllm", {}))
    return opts


def model_gpus(model):
    """GPUs one generation job of ``model`` occupies: its vLLM tensor-parallel size (else 1)."""
    return int(generation_backend_options(model).get("tensor_parallel_size", 1))


# --- accounting ---------------------------------------------------------------------


def accounting_reference_inputs():
    """The paper reference-values file (``accounting.reference_values``, repo-relative) when set."""
    path = config["accounting"].get("reference_values")
    return {"reference": str(REPO_ROOT / path)} if path else {}


def study2_panel_names():
    """(datasets, models) of Study 2: ``generation.datasets`` x ``generation.models`` (config order)."""
    gen = config.get("generation") or {}
    return list(gen.get("datasets", [])), list(gen.get("models", []))


def study1_accounting_settings():
    """``accounting.study1`` plus, from ``verifier:``, the dataset, system (verifier name),
    sources and checkpoint indices (1..number of checkpoint seeds), and the batch size
    shared by all bootstraps."""
    settings = dict(config["accounting"]["study1"])
    boot = dict(settings.pop("bootstrap"))
    ver = config["verifier"]
    settings.update(boot, batch_size=config["accounting"]["bootstrap"]["batch_size"], dataset=ver["dataset"],
                    system=ver["name"], sources=list(ver["sources"]),
                    checkpoints=list(range(1, len(ver["checkpoint_seeds"]) + 1)))
    return settings


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


def study2_accounting_settings(family=None):
    """``accounting.study2`` plus datasets/models, and for a bootstrap ``family`` its draws,
    alpha, family size, the seed and batch size; for decisions the thresholds."""
    datasets, models = study2_panel_names()
    settings = dict(config["accounting"]["study2"], datasets=datasets, models=models)
    boot = config["accounting"]["bootstrap"]
    if family is not None:
        settings.update(boot[family], seed=boot["seed"], batch_size=boot["batch_size"])
    return settings


def decision_settings():
    return dict(study2_accounting_settings(), **config["accounting"]["decision"])


STUDY2_BOOTSTRAP_FAMILIES = ("primary", "exploratory", "crossed")


def accounting_final_outputs():
    targets = []
    if enabled("study1"):
        targets += ["results/accounting/study1/estimates.tsv", "results/accounting/study1/intervals.tsv"]
    if enabled("study2"):
        targets += [f"results/accounting/study2/intervals_{f}.tsv" for f in STUDY2_BOOTSTRAP_FAMILIES]
        targets += ["results/accounting/study2/decision_label.tsv", "results/accounting/study2/forest_primary.png",
                    "results/accounting/study2/pattern_examples.tsv", "results/accounting/study2/invalid_rates.tsv"]
    return targets


# --- conflict -----------------------------------------------------------------------


DIFFGR_FILE_RUNS = ("hybrid", "generated", "retrieved", "closed_book")


def conflict_model_cfg(name):
    """The ``models:`` entry of a model used by the conflict stage (error names the key)."""
    models = config.get("models") or {}
    if name not in models:
        raise ValueError(f"config: model {name!r} (used by wikicontradict/diffgr) is not defined under 'models:'")
    return dict(models[name])


def conflict_model_inputs(name):
    """The locally built model directory as an input when the model has one (demo models)."""
    local = conflict_model_cfg(name).get("local_dir")
    return {"model_dir": local} if local else {}


def conflict_generation_params(model=None):
    """Backend name, constructor options and batch size: the generation stage's settings
    (``generation_backend_options`` in its section), so both stages load models alike."""
    options = generation_backend_options(model)
    return {
        "backend": config["generation"].get("backend", "transformers"),
        "backend_options": options,
        "batch_size": int(options["batch_size"]),
    }


def conflict_cache_dir(model):
    """The response-cache directory of one model (shared with the generation stage)."""
    root = (config.get("generation") or {}).get("cache_dir", "results/cache/generation")
    return f"{root}/{model}"


def repo_path(relpath):
    """A project file named in config (e.g. the judge's few-shot examples), relative to the repo."""
    path = Path(relpath)
    return str(path if path.is_absolute() else REPO_ROOT / path)


def wikicontradict_human_labels():
    """The human-label file (``data.wikicontradict.human_judgements``) or None."""
    rel = ((config.get("data") or {}).get("wikicontradict") or {}).get("human_judgements")
    return data_path(rel) if rel else None


def wikicontradict_final_outputs():
    if not enabled("wikicontradict"):
        return []
    out = ["results/wikicontradict/rates.tsv", "results/wikicontradict/detection.tsv"]
    if wikicontradict_human_labels():
        out += ["results/wikicontradict/judge_agreement.tsv", "results/wikicontradict/judge_confusion.tsv"]
    return out


def diffgr_final_outputs():
    if not enabled("diffgr"):
        return []
    out = ["results/diffgr/diffgr.tsv", "results/diffgr/length_control.tsv"]
    if config["diffgr"].get("reader_run_files"):
        out.append("results/diffgr/reader_files.tsv")
    return out



# --- report -------------------------------------------------------------------------


def trace_datasets():
    """Study 2 datasets whose evidence-only credit changes are traced in the report."""
    return list(study2_panel_names()[0])


def claim_trace_inputs(wildcards):
    inputs = {"traces": "results/accounting/study2/pattern_traces.parquet"}
    for dataset in trace_datasets():
        inputs[f"claims_{dataset}"] = f"results/sampling/{dataset}/sample.parquet"
        inputs[f"evidence_{dataset}"] = f"results/evidence/{dataset}/evidence.parquet"
        inputs[f"units_{dataset}"] = f"results/ingest/{dataset}/units.parquet"
    return inputs


def report_final_outputs():
    targets = ["results/report/provenance.tsv"]
    if enabled("study2"):
        targets.append("results/report/claim_traces.tsv")
    return targets

