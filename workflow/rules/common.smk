"""What every stage shares: the preflight and config validation, the benchmark registry's wildcard
constraint, data_path / input_path, the log / benchmark / report paths of a rule (rule_log,
rule_benchmark, report_output), enabled, the FINAL_OUTPUTS registry, and the generation
cache / backend settings used by both the generation and the conflict stages.

Each stage's own input functions, constants and target hook live in
workflow/rules/<stage>_functions.smk, included at the top of workflow/rules/<stage>.smk.
"""
import os
from pathlib import Path

import yaml
from snakemake.utils import validate

from evidence_ledger.benchmark_registry import benchmark_names, benchmarks
from evidence_ledger.benchmark_registry import dataset_wildcard_regex, get_benchmark, load_plugins
from evidence_ledger import gpu_slots, job_env, rule_resources
from evidence_ledger.config_layers import ConfigError, resolve_path
from evidence_ledger.gpu_fit import SERVED_BACKENDS, config_device_memory_gb, model_backend, model_job_gpus
from evidence_ledger.gpu_fit import tensor_parallel_size
from evidence_ledger.preflight import workflow_preflight

REPO_ROOT = Path(workflow.basedir)
# Snakemake's working directory (--directory): relative paths of the config resolve here
RUN_DIR = Path.cwd()

# Before any job, every run and dry run: the preflight (evidence_ledger.preflight: config, paths,
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
                                     workflow.config_settings.config_args))
validate(config, schema="../schemas/config.schema.yaml")  # checked above; this fills the schema's defaults

SCHEMA = yaml.safe_load((REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())

# jobs (SLURM or local) get the pipeline's interpreter and thread/offline settings, whatever
# the submitting shell has: evidence_ledger.job_env, config job_env (README "Running on SLURM")
job_env.prepare(REPO_ROOT, str(JOB_ENV_DIR) if JOB_ENV_DIR else None)

load_plugins(config["benchmark_plugins"])
# Workstation runs: each GPU job pins itself to its own devices (evidence_ledger.gpu_slots), from
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
    run directory, or the workflow's directory for the demo's own data: config_layers); a path
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


# --- the log, benchmark and report paths, named the same way in every stage ----------------


def rule_log(stage, rule, wildcards=None):
    """The log of one rule's job: ``logs/<stage>/<rule>.log``, or ``logs/<stage>/<rule>/<wildcards>.log``
    for a rule with wildcards (``wildcards`` a pattern such as ``"{family}"``)."""
    return f"logs/{stage}/{rule}/{wildcards}.log" if wildcards else f"logs/{stage}/{rule}.log"


def rule_benchmark(stage, rule, wildcards=None):
    """The benchmark file beside the rule's log (``....benchmark.tsv``)."""
    return rule_log(stage, rule, wildcards)[: -len(".log")] + ".benchmark.tsv"


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
