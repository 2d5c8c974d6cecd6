"""What every stage shares: the preflight and config validation, the benchmark registry's wildcard
constraint, data_path / input_path, the log / timing / report paths of a rule (log_file,
timing_file, report_output), enabled, the FINAL_OUTPUTS registry, and the generation
cache / backend settings used by both the generation and the conflict stages.

Each stage's own input functions, constants and target hook live in
workflow/rules/<stage>_functions.smk, included at the top of workflow/rules/<stage>.smk.
"""
import os
import re
import sys
from pathlib import Path

import yaml
from snakemake.utils import validate

from evidence_ledger.benchmark_registry import benchmark_names, benchmarks
from evidence_ledger.benchmark_registry import CONFLICT_QA_DATASETS, conflict_qa_wildcard_regex
from evidence_ledger.benchmark_registry import dataset_wildcard_regex, get_benchmark, load_plugins
from evidence_ledger.jobs import rule_resources
from evidence_ledger.run import gpu_slots, job_env
from evidence_ledger.config.layers import ConfigError, resolve_path
from evidence_ledger.models.gpu_fit import SERVED_BACKENDS, config_device_memory_gb, model_backend, model_job_gpus
from evidence_ledger.models.gpu_fit import tensor_parallel_size
from evidence_ledger.run.preflight import until_rules, workflow_preflight

REPO_ROOT = Path(workflow.basedir)
# Snakemake's working directory (--directory): relative paths of the config resolve here
RUN_DIR = Path.cwd()

# Before any job, every run and dry run: the preflight (evidence_ledger.run.preflight: config, paths,
# data, models, machine, plan), one line per problem, and the run ends if any check fails. Only
# the main process checks: a spawned job is parsed with its own --resources.
# (A submit host's environment without pyarrow or huggingface_hub, .venv-slurm, has the checks
# run by the jobs' interpreter.)
try:
    JOB_ENV_DIR = job_env.job_env_dir(REPO_ROOT, resolve_path(RUN_CONFIG, "job_env", RUN_DIR, REPO_ROOT, "input"))
except ValueError as err:
    raise SystemExit(f"error: {err}")
if workflow.is_main_process:
    workflow_preflight(RUN_CONFIG, REPO_ROOT, gpus_granted=workflow.global_resources.get("gpu").value,
                       job_python=JOB_ENV_DIR / "bin" / "python" if JOB_ENV_DIR else None,
                       command_line=(workflow.main_snakefile, workflow.overwrite_configfiles,
                                     workflow.config_settings.config_args),
                       until=until_rules(sys.argv[1:]))
validate(config, schema="../schemas/config.schema.yaml")  # checked above; this fills the schema's defaults

SCHEMA = yaml.safe_load((REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())

# jobs (SLURM or local) get the pipeline's interpreter and thread/offline settings, whatever
# the submitting shell has: evidence_ledger.run.job_env, config job_env (README "Running on SLURM")
job_env.prepare(REPO_ROOT, str(JOB_ENV_DIR) if JOB_ENV_DIR else None)

load_plugins(config["benchmark_plugins"])
# Workstation runs: each GPU job pins itself to its own devices (evidence_ledger.run.gpu_slots), from
# the GPUs this run grants; SLURM jobs keep the devices the scheduler assigns.
if workflow.is_main_process and workflow.local_exec:
    try:
        gpu_slots.export_pool(os.environ, workflow.global_resources.get("gpu").value)
    except gpu_slots.GpuPoolError as err:
        raise SystemExit(f"error: {err}")


# {dataset} is a registered benchmark wherever a rule does not constrain it itself
wildcard_constraints:
    dataset=dataset_wildcard_regex(),


def data_path(relpath):
    """A dataset file named in config, resolved inside ``data_root`` (itself resolved against the
    run directory, or the workflow's directory for the demo's own data: config.layers); a path
    that escapes it is refused (the preflight names the key first)."""
    root = resolve_path(RUN_CONFIG, "data_root", RUN_DIR, REPO_ROOT, "input").resolve()
    path = (root / relpath).resolve()
    if path != root and root not in path.parents:
        raise ConfigError(f"config: path {relpath!r} resolves to {path}, outside data_root={root}; "
                          f"paths in the config must stay inside the directory you named")
    return str(path)


def input_path(key):
    """A file outside data_root named by config key ``key`` (e.g. the judge's few-shot examples):
    relative to the run directory, or, set by the workflow's own layers, to its directory."""
    return str(resolve_path(RUN_CONFIG, key, RUN_DIR, REPO_ROOT, "input"))


def generation_cache_dir(model):
    """The response cache of one model (config ``generation.cache_dir``), shared by every rule
    that generates (Study 2 generation, WikiContradict, DiffGR, the judge)."""
    return f"{config['generation']['cache_dir']}/{model}"


def generation_conda_env():
    """Conda env of the rules that run a generation backend: vLLM on GPU, else the CPU env."""
    return "../../envs/gpu-vllm.yaml" if config["generation"]["backend"] == "vllm" else "../../envs/cpu.yaml"


def gpu_resources(gpus):
    """Resources of every rule that wants a GPU (the one mechanism; use as ``**gpu_resources(n)``).

    ``gpus``: the GPUs one job needs, an int or a function of the wildcards. Returns ``gpu`` (what
    local runs count against ``--resources gpu=N`` and the SLURM plugin turns into ``--gpus``) and
    ``slurm_partition``: config ``slurm_gpu_partition``, or none (the cluster's default partition,
    never the CPU partition given by ``--default-resources slurm_partition=...``). A job that needs
    no GPU (a served model's client, ``gpus`` 0) runs where every CPU rule runs (the
    ``--default-resources`` partition). With ``gpu_jobs: cpu`` (the CPU route: a CPU-only cluster,
    or the demo through SLURM) the rule asks for no GPU and runs where every other rule runs.
    """
    if config["gpu_jobs"] == "cpu":
        return {"gpu": 0}
    partition = config["slurm_gpu_partition"]
    count = gpus if callable(gpus) else (lambda wildcards: gpus)
    return {"gpu": gpus, "slurm_partition": (lambda wildcards: partition if count(wildcards) else cpu_partition())}


def cpu_partition():
    """The partition ``--default-resources slurm_partition=...`` gives every CPU rule, None when unset;
    the value as written (Snakemake evaluates such a value only inside a job)."""
    defaults = workflow.resource_settings.default_resources
    found = defaults.get("slurm_partition") if defaults is not None else None
    if found is not None and not isinstance(found, (str, int)):
        found = found.raw if found.is_evaluable() else found.value
    return found.strip("'\"") if isinstance(found, str) else found


# --- the log, timing and report paths, named the same way in every stage -------------------


def log_file(stage, rule, wildcards=None):
    """The log of one rule's job: ``logs/<stage>/<rule>.log``, or ``logs/<stage>/<rule>/<wildcards>.log``
    for a rule with wildcards (``wildcards`` a pattern such as ``"{family}"``)."""
    return f"logs/{stage}/{rule}/{wildcards}.log" if wildcards else f"logs/{stage}/{rule}.log"


def timing_file(stage, rule, wildcards=None):
    """The job's timing file (Snakemake's ``benchmark:`` directive) beside its log (``....timing.tsv``)."""
    return log_file(stage, rule, wildcards)[: -len(".log")] + ".timing.tsv"


# --- where every stage writes: one path provider per stage (PyPSA-Eur's resources() pattern) ---
# Each output path of the workflow is spelled once, here, under a name; rules and input
# functions ask the stage's provider for it: INGEST("units") is "results/ingest/{dataset}/units.parquet",
# INGEST("units", dataset="fever") fills that wildcard (others stay for Snakemake).


def fill_wildcards(pattern, values):
    """``pattern`` with the ``{name}`` wildcards of ``values`` replaced by their values."""
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), pattern)


def path_provider(stage, paths):
    """The path provider of ``stage``: ``provider(name, **wildcards)`` -> ``results/<paths[name]>``
    with the given wildcards filled in; an unknown name is refused when the workflow is parsed."""
    def provider(key, /, **values):
        if key not in paths:
            raise KeyError(f"the {stage} stage writes no {key!r}; its outputs: {sorted(paths)}")
        return fill_wildcards(f"results/{paths[key]}", values)
    provider.stage, provider.paths = stage, paths
    return provider


INGEST = path_provider("ingest", {
    "claims": "ingest/{dataset}/claims_{split}.parquet",
    "units": "ingest/{dataset}/units.parquet",
    "documents": "ingest/{dataset}/documents.parquet",
    "instances": "ingest/wikicontradict/instances.parquet",
    "records": "ingest/{dataset}/records.parquet",
})

SAMPLING = path_provider("sampling", {
    "sample": "sampling/{dataset}/sample.parquet",
    "sample_summary": "sampling/{dataset}/sample_summary.tsv",
    "families": "families/{dataset}/families.parquet",
    "family_links": "families/{dataset}/family_links.parquet",
    "families_summary": "families/{dataset}/families_summary.tsv",
})

RETRIEVAL = path_provider("retrieval", {
    "index": "retrieval/{dataset}/index",
    "retrieved": "retrieval/{dataset}/retrieved.parquet",
    "pools": "retrieval/{dataset}/pools.parquet",
    "ordering": "retrieval/{dataset}/ordering_{source}.parquet",
})

EVIDENCE = path_provider("evidence", {
    "evidence": "evidence/{dataset}/evidence.parquet",
    "external": "evidence/{dataset}/external_{name}.parquet",
    "external_summary": "evidence/{dataset}/external_{name}.summary.json",
    "submission": "evidence/{dataset}/submissions/external_{name}.jsonl",
    "diagnostics": "evidence/{dataset}/diagnostics.tsv",
})

GENERATION = path_provider("generation", {
    "requests": "generation/{model}/{dataset}/requests.parquet",
    "shard_responses": "generation/{model}/{dataset}/shards/responses_{shard}.parquet",
    "responses": "generation/{model}/{dataset}/responses.parquet",
    "parsed": "generation/{model}/{dataset}/parsed.parquet",
    "parse_failures": "generation/{model}/{dataset}/parse_failures.tsv",
    "plan": "report/generation_plan.tsv",
})

VERIFIER = path_provider("verifier", {
    "inputs": "verifier/inputs_{split}.parquet",
    "checkpoint": "verifier/ckpt{k}",
    "answers": "verifier/answers.parquet",
    "summary": "verifier/summary.tsv",
    "answer_indicators": "study1/answer_indicators.parquet",
    "evidence_indicators": "study1/evidence_indicators.parquet",
    "relevant": "study1/relevant.parquet",
    "unresolved": "study1/unresolved.parquet",
    "unresolved_tsv": "study1/unresolved.tsv",
})

DEMO = path_provider("demo", {
    "model": "models/{model}",
})

SCORING = path_provider("scoring", {
    "evidence_indicators": "scoring/{dataset}/evidence_indicators.parquet",
    "relevant": "scoring/{dataset}/relevant.parquet",
    "eligibility": "scoring/{dataset}/eligibility.tsv",
    "answer_indicators": "scoring/{model}/{dataset}/answer_indicators.parquet",
})

ACCOUNTING = path_provider("accounting", {
    "study1_estimates": "accounting/study1/estimates.parquet",
    "study1_estimates_tsv": "accounting/study1/estimates.tsv",
    "study1_counts": "accounting/study1/counts.parquet",
    "study1_coverage": "accounting/study1/coverage.parquet",
    "study1_intervals": "accounting/study1/intervals.parquet",
    "study1_intervals_tsv": "accounting/study1/intervals.tsv",
    "study1_answer_metrics_tsv": "accounting/study1/answer_metrics.tsv",
    "estimates": "accounting/study2/estimates.parquet",
    "contrasts_tsv": "accounting/study2/contrasts.tsv",
    "cells_tsv": "accounting/study2/cells.tsv",
    "partition_tsv": "accounting/study2/partition.tsv",
    "crossed_tsv": "accounting/study2/crossed.tsv",
    "invalid_rates": "accounting/study2/invalid_rates.parquet",
    "invalid_rates_tsv": "accounting/study2/invalid_rates.tsv",
    "counts": "accounting/study2/counts.parquet",
    "coverage": "accounting/study2/coverage.parquet",
    "pattern_traces": "accounting/study2/pattern_traces.parquet",
    "pattern_examples_tsv": "accounting/study2/pattern_examples.tsv",
    "intervals": "accounting/study2/intervals_{family}.parquet",
    "intervals_tsv": "accounting/study2/intervals_{family}.tsv",
    "decision_criteria": "accounting/study2/decision_criteria.parquet",
    "decision_criteria_tsv": "accounting/study2/decision_criteria.tsv",
    "decision_label": "accounting/study2/decision_label.parquet",
    "decision_label_tsv": "accounting/study2/decision_label.tsv",
    "forest_png": "accounting/study2/forest_primary.png",
    "forest_svg": "accounting/study2/forest_primary.svg",
    "counts_by_parser": "accounting/study2/counts_by_parser.parquet",
    "analysis_tsv": "accounting/study2/{analysis}.tsv",
    "items": "accounting/{study}/items.parquet",
    "item_texts": "accounting/{study}/item_texts.parquet",
})

ACCOUNT = path_provider("account", {
    "estimates": "account/{system}/estimates.parquet",
    "estimates_tsv": "account/{system}/estimates.tsv",
    "counts": "account/{system}/counts.parquet",
    "coverage": "account/{system}/coverage.parquet",
    "intervals": "account/{system}/intervals.parquet",
    "intervals_tsv": "account/{system}/intervals.tsv",
    "answer_metrics_tsv": "account/{system}/answer_metrics.tsv",
    "items": "account/{system}/items.parquet",
    "item_texts": "account/{system}/item_texts.parquet",
})

WIKICONTRADICT = path_provider("wikicontradict", {
    "requests": "wikicontradict/{wc_model}/requests.parquet",
    "responses": "wikicontradict/{wc_model}/responses.parquet",
    "judgements": "wikicontradict/{wc_model}/judgements.parquet",
    "human_judged": "wikicontradict/judge_agreement/judgements.parquet",
    "rates": "wikicontradict/rates.tsv",
    "detection": "wikicontradict/detection.tsv",
    "agreement": "wikicontradict/judge_agreement.tsv",
    "confusion": "wikicontradict/judge_confusion.tsv",
})

DIFFGR = path_provider("diffgr", {
    "answers": "diffgr/{dg_model}/{dg_dataset}/reader_answers.parquet",
    "lengths": "diffgr/{dg_model}/{dg_dataset}/lengths.parquet",
    "cc_items": "diffgr/cc_items.parquet",
    "diffgr": "diffgr/diffgr.tsv",
    "length_control": "diffgr/length_control.tsv",
    "reader_files": "diffgr/reader_files.tsv",
})

REPORT = path_provider("report", {
    "provenance": "report/provenance.tsv",
    "gpu_fit": "report/gpu_fit.tsv",
    "claim_traces": "report/claim_traces.tsv",
    "summary": "report/summary.html",
    "items": "report/items.html",
    "decomposition": "report/study1_decomposition.png",
    "ledger": "report/ledger.json",
})


def report_output(path, caption, category, subcategory):
    """An output shown in the Snakemake report, captioned by ``workflow/report/<caption>.rst``."""
    return report(path, caption=f"../report/{caption}.rst", category=category, subcategory=subcategory)


FINAL_OUTPUTS = {}  # stage name -> function returning a list of targets; stages register here


def get_final_output():
    """All `rule all` targets, derived from the config switches through each stage's hook."""
    targets = []
    for name, fn in FINAL_OUTPUTS.items():
        targets.extend(fn())
    return targets


def enabled(study):
    return bool(config["studies"][study])


# --- generation settings shared by the generation and conflict stages -------------------


# Shared with the conflict stage (its generating rules and conflict_batch_size in
# conflict_functions.smk), so they stay here; the generation stage's own helpers are in
# generation_functions.smk.


def generation_backend(model):
    """What a job of ``model`` gets as its backend: the name of a built-in or an installed entry
    point, or the ``"module:Class"`` a ``generation.backend_plugins`` name stands for."""
    name = model_backend(config, model)
    return config["generation"]["backend_plugins"].get(name, name)


def generation_backend_options(model=None):
    """Backend constructor options of ``model`` (None: of ``generation.backend``): ``batch_size``;
    for vLLM its engine options, ``models.<model>.tensor_parallel_size`` over the global
    ``generation.tensor_parallel_size`` (e.g. a 70B judge on 2+ GPUs); for a served model its
    ``models.<model>.server`` over ``generation.server``; for a plugin ``models.<model>.backend_options``."""
    g = config["generation"]
    opts = {"batch_size": g["batch_size"]}
    name = g["backend"] if model is None else model_backend(config, model)
    mcfg = config["models"].get(model) or {} if model is not None else {}
    if name == "vllm":
        tp = g["tensor_parallel_size"] if model is None else tensor_parallel_size(config, model)
        opts.update(enable_prefix_caching=g["enable_prefix_caching"], tensor_parallel_size=tp)
        opts.update(g["vllm"])
    elif name in SERVED_BACKENDS:
        opts.update(g["server"])
        opts.update(mcfg.get("server") or {})
    else:
        opts.update(mcfg.get("backend_options") or {})
    return opts


def model_gpus(model):
    """GPUs one generation job of ``model`` occupies: its vLLM tensor-parallel size (else 1);
    the same count the preflight's GPU fit compares with ``--resources gpu``, so no job asks for
    more GPUs than the run grants (Snakemake would silently lower the request)."""
    return model_job_gpus(config, model)
