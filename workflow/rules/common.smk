"""Helpers shared by all rules: config validation, path resolution, target lists.

Only helper/input functions live here; rules live in the per-stage files. Each stage has
its own section below (ingest, sampling, retrieval, generation, verifier, scoring,
accounting, conflict, report); keep helpers in their stage's section.
"""
import os
from pathlib import Path

from snakemake.utils import validate

validate(config, schema="../schemas/config.schema.yaml")

REPO_ROOT = Path(workflow.basedir)


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


def gpu_resources(gpus):
    """Resources of every rule that wants a GPU (the one mechanism; use as ``**gpu_resources(n)``).

    ``gpus``: the GPUs one job needs, an int or a function of the wildcards. Returns ``gpu`` (what
    local runs count against ``--resources gpu=N`` and the SLURM plugin turns into ``--gpus``) and
    ``slurm_partition``: config ``slurm_gpu_partition``, or none (the cluster's default partition,
    never the CPU partition given by ``--default-resources slurm_partition=...``). With
    ``gpu_jobs: cpu`` (the CPU route: a CPU-only cluster, or the demo through SLURM) the rule asks
    for no GPU and runs where every other rule runs.
    """
    if config.get("gpu_jobs", "gpu") == "cpu":
        return {"gpu": 0}
    partition = config.get("slurm_gpu_partition")
    return {"gpu": gpus, "slurm_partition": (lambda wildcards: partition)}


FINAL_OUTPUTS = {}  # stage name -> function returning a list of targets; stages register here


def get_final_output():
    """All `rule all` targets, derived from the config switches through each stage's hook."""
    targets = []
    for name, fn in FINAL_OUTPUTS.items():
        targets.extend(fn())
    return targets


def enabled(study):
    return bool(config["studies"].get(study, False))


# --- ingest -------------------------------------------------------------------------

CLAIM_DATASETS = ("fever", "feverous", "scifact")
CONFLICT_QA_DATASETS = ("nqcc", "tqacc")
# the corpus file of each claim dataset, under config data.<dataset>.<key>
CORPUS_KEY = {"fever": "wiki", "feverous": "wiki", "scifact": "corpus"}


def ingest_splits(dataset):
    """Configured claim splits of a dataset (config ``data.<dataset>.claims`` keys, config order)."""
    return list(config["data"].get(dataset, {}).get("claims", {}))


def ingest_claims_outputs(dataset):
    return [f"results/ingest/{dataset}/claims_{split}.parquet" for split in ingest_splits(dataset)]


def ingest_on_unresolved(dataset):
    return config["data"][dataset].get("on_unresolved", "error")


def ingest_inputs(dataset):
    """Named inputs of ingest_<dataset>: ``claims`` (split order) and the corpus when configured."""
    section = config["data"][dataset]
    inputs = {"claims": [data_path(p) for p in section["claims"].values()]}
    corpus = section.get(CORPUS_KEY[dataset])
    if corpus:
        inputs[CORPUS_KEY[dataset]] = data_path(corpus)
    return inputs


def wikicontradict_inputs():
    section = config["data"]["wikicontradict"]
    inputs = {"csv": data_path(section["rag_qa_csv"])}
    if section.get("full_json"):
        inputs["full_json"] = data_path(section["full_json"])
    return inputs


def ingest_final_outputs():
    """Every ingest table of the datasets named in ``data`` (conflict ones behind their study switch)."""
    targets = []
    for dataset in CLAIM_DATASETS:
        if dataset in config["data"]:
            targets += ingest_claims_outputs(dataset)
            targets += [f"results/ingest/{dataset}/units.parquet", f"results/ingest/{dataset}/documents.parquet"]
    if "wikicontradict" in config["data"] and enabled("wikicontradict"):
        targets.append("results/ingest/wikicontradict/instances.parquet")
    for dataset in CONFLICT_QA_DATASETS:
        if dataset in config["data"] and enabled("diffgr"):
            targets.append(f"results/ingest/{dataset}/records.parquet")
    return targets


# --- sampling -----------------------------------------------------------------------


def family_claim_inputs(dataset):
    """Ingested claims of the family population (config ``families.splits.<dataset>``)."""
    return [f"results/ingest/{dataset}/claims_{split}.parquet" for split in config["families"]["splits"][dataset]]


def sample_inputs(dataset):
    """Named inputs of sample_claims: ``claims`` of the sampled split; FEVEROUS with reserved ids
    also ``families`` and ``reserved`` (the reserved-id file)."""
    settings = config["sampling"][dataset]
    inputs = {"claims": f"results/ingest/{dataset}/claims_{settings['split']}.parquet"}
    if settings.get("exclude_reserved_families"):
        inputs["families"] = f"results/families/{dataset}/families.parquet"
        inputs["reserved"] = data_path(config["data"][dataset]["reserved_ids"])
    return inputs


def sampling_final_outputs():
    """Sample and families of every dataset configured under ``sampling`` (Study 2 only)."""
    if not enabled("study2"):
        return []
    targets = []
    for dataset in config["sampling"]:
        targets += [f"results/sampling/{dataset}/sample.parquet", f"results/families/{dataset}/families.parquet"]
    return targets


# --- retrieval ----------------------------------------------------------------------


def retrieval_datasets():
    """Datasets that get pools, orderings and evidence (config ``retrieval.datasets``)."""
    return list(config["retrieval"]["datasets"])


def retrieval_per_document(dataset):
    """True where the unit of evaluation is claim x abstract (config ``retrieval.abstract_datasets``)."""
    return dataset in config["retrieval"]["abstract_datasets"]


def retrieval_k(dataset):
    """Documents retrieved per claim: abstracts (SciFact) or wiki pages."""
    r = config["retrieval"]
    return r["abstracts_per_claim"] if retrieval_per_document(dataset) else r["pages_per_claim"]


def retrieval_claim_inputs(dataset):
    """CLAIMS tables whose claims are retrieved for: the Study 2 sample (when Study 2 runs and the
    dataset is sampled) and the ingest splits in ``retrieval.extra_claim_splits.<dataset>``."""
    paths = []
    if enabled("study2") and dataset in config.get("sampling", {}):
        paths.append(f"results/sampling/{dataset}/sample.parquet")
    for split in config["retrieval"].get("extra_claim_splits", {}).get(dataset, []):
        paths.append(f"results/ingest/{dataset}/claims_{split}.parquet")
    if not paths:
        raise ValueError(f"retrieval: no claims for dataset {dataset!r} (enable study2 with sampling, "
                         f"or list splits under retrieval.extra_claim_splits)")
    return paths


def reranker_spec():
    """Reranker settings for order_bge (``local_dir`` wins over ``hub_id``/``revision``)."""
    r = config["retrieval"]["reranker"]
    return {"hub_id": r["hub_id"], "revision": r["revision"], "local_dir": r.get("local_dir"),
            "batch_size": r["batch_size"], "fp16": r["fp16"], "max_length": r["max_length"]}


def reranker_inputs():
    """The locally built reranker directory when ``retrieval.reranker.build`` is set, else nothing."""
    r = config["retrieval"]["reranker"]
    return {"reranker": r["local_dir"]} if r.get("build") and r.get("local_dir") else {}


def demo_reranker_inputs():
    """Inputs of build_demo_reranker, per dataset of ``retrieval.reranker.build.datasets`` (in
    config order): corpus indexes, units, and the training claims of the listed splits."""
    b = config["retrieval"]["reranker"].get("build")
    if not b:
        raise ValueError("retrieval.reranker.build is not set; the reranker is loaded from the Hub")
    ds = list(b["datasets"])
    return {"index": [f"results/retrieval/{d}/index" for d in ds],
            "units": [f"results/ingest/{d}/units.parquet" for d in ds],
            "claims": [f"results/ingest/{d}/claims_{s}.parquet" for d in ds for s in b["datasets"][d]]}


def demo_reranker_sources():
    """Per training dataset: number of claims tables (in input order) and documents per claim."""
    b = config["retrieval"]["reranker"].get("build") or {"datasets": {}}
    return [{"dataset": d, "n_claims": len(splits), "k": retrieval_k(d)} for d, splits in b["datasets"].items()]


def demo_reranker_train_settings():
    b = config["retrieval"]["reranker"].get("build") or {}
    return dict(b.get("train", {}))


def budget_tokenizer_specs():
    """name -> {path, revision} of the tokenizers whose counts bound the evidence budgets: the
    generation models named in ``evidence.budget_tokenizers`` (their ``local_dir`` when set,
    else Hub id at the pinned revision)."""
    specs = {}
    for name in config["evidence"]["budget_tokenizers"]:
        m = config["models"][name]
        if m.get("local_dir"):
            specs[name] = {"path": m["local_dir"], "revision": None}
        else:
            specs[name] = {"path": m["hub_id"], "revision": m["revision"]}
    return specs


def budget_tokenizer_inputs():
    """Directories of locally built budget tokenizers (so the model-building rule runs first)."""
    return [config["models"][n]["local_dir"] for n in config["evidence"]["budget_tokenizers"]
            if config["models"][n].get("build") and config["models"][n].get("local_dir")]


def scored_prefix_caps(dataset):
    caps = dict(config["evidence"]["scored_prefix"][dataset])
    caps["cell_like_kinds"] = list(config["evidence"]["cell_like_kinds"])
    return caps


def evidence_providers(dataset):
    """Provider evidence sources of a dataset (config ``evidence.providers.<dataset>``), Study 1 only."""
    if not enabled("study1"):
        return {}
    return dict(config["evidence"].get("providers", {}).get(dataset, {}) or {})


def provider_claim_inputs(dataset):
    """Claims tables the provider submissions cover: ``evidence.provider_split`` (one split or a
    list, e.g. [train, dev]: Study 1 trains on source-0 evidence of the training claims)."""
    splits = config["evidence"]["provider_split"]
    splits = [splits] if isinstance(splits, str) else list(splits)
    return [f"results/ingest/{dataset}/claims_{s}.parquet" for s in splits]


def provider_submission_input(wildcards):
    """The submission file of a provider: exported from our ordering, or a file under data_root."""
    spec = evidence_providers(wildcards.dataset)[wildcards.name]
    if spec.get("export"):
        return f"results/evidence/{wildcards.dataset}/submissions/provider_{wildcards.name}.jsonl"
    return data_path(spec["file"])


def provider_export_source(wildcards):
    return evidence_providers(wildcards.dataset)[wildcards.name]["export"]


def provider_source_name(wildcards):
    """The EVIDENCE ``source`` of a provider: its ``source`` setting, else its config key."""
    spec = evidence_providers(wildcards.dataset)[wildcards.name]
    return spec.get("source") or wildcards.name


def evidence_diagnostics_inputs(wildcards):
    d = wildcards.dataset
    return {"claims": retrieval_claim_inputs(d), "retrieved": f"results/retrieval/{d}/retrieved.parquet",
            "pools": f"results/retrieval/{d}/pools.parquet",
            "evidence": [f"results/evidence/{d}/evidence.parquet"]
            + [f"results/evidence/{d}/provider_{n}.parquet" for n in evidence_providers(d)]}


def retrieval_has_claims(dataset):
    """True when some claims of the dataset are retrieved for (see ``retrieval_claim_inputs``)."""
    return (enabled("study2") and dataset in config.get("sampling", {})) or bool(
        config["retrieval"].get("extra_claim_splits", {}).get(dataset))


def retrieval_final_outputs():
    """Evidence + diagnostics of every retrieval dataset with claims; provider imports (Study 1)."""
    targets = []
    for d in retrieval_datasets():
        if retrieval_has_claims(d):
            targets += [f"results/evidence/{d}/evidence.parquet", f"results/evidence/{d}/diagnostics.tsv"]
        targets += [f"results/evidence/{d}/provider_{n}.parquet" for n in evidence_providers(d)]
    return targets



# --- generation ---------------------------------------------------------------------


def generation_models():
    """Study 2 model names (config ``generation.models``)."""
    return list(config["generation"]["models"])


def demo_built_models():
    """Models the demo builds locally (``models.<name>.build`` set)."""
    return [m for m, c in config["models"].items() if c.get("build")]


def model_dir_inputs(model):
    """The local model directory a generation job needs (built or pre-placed), else nothing."""
    local = config["models"][model].get("local_dir")
    return [local] if local else []


def demo_model_train_inputs():
    """Ingested train claims + units of the datasets the demo models are trained on."""
    datasets = config["generation"].get("demo_models", {}).get("train_datasets", config["generation"]["datasets"])
    out = {
        "claims": [f"results/ingest/{d}/claims_train.parquet" for d in datasets],
        "units": [f"results/ingest/{d}/units.parquet" for d in datasets],
        "wikicontradict": [],
        "fewshot": [],
        "reader_records": [],
    }
    if demo_conflict_tasks_on():
        if "wikicontradict" in config and enabled("wikicontradict"):
            out["wikicontradict"] = ["results/ingest/wikicontradict/instances.parquet"]
            out["fewshot"] = [repo_path(config["wikicontradict"]["judge"]["fewshot_file"])]
        if "diffgr" in config and enabled("diffgr"):
            out["reader_records"] = [f"results/ingest/{d}/records.parquet" for d in config["diffgr"]["datasets"]]
    return out


def demo_conflict_tasks_on():
    """Whether the demo models also learn the conflict stage's prompts (``demo_models.conflict_tasks``).

    Only the tasks of enabled studies (``studies.wikicontradict``, ``studies.diffgr``) are added."""
    ct = config["generation"].get("demo_models", {}).get("conflict_tasks") or {}
    return bool(ct.get("enabled", False))


def demo_conflict_params():
    """What the demo models' conflict-task mixture needs: prompts/templates from the conflict config."""
    if not demo_conflict_tasks_on():
        return {}
    wc, dg = config.get("wikicontradict") or {}, config.get("diffgr") or {}
    return {
        "templates": wc.get("templates", []),
        "passage_version": wc.get("passage_version", "rag_qa"),
        "reader_prompt": dg.get("prompt", ""),
        "closed_book_prompt": dg.get("closed_book_prompt", ""),
    }


def generation_plan_params():
    """The part of ``generation`` that determines the request table."""
    g = config["generation"]
    keys = ("seeds", "sampling", "max_new_tokens", "formats", "sources", "budgets", "code_mappings", "controls")
    return {k: g[k] for k in keys}


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


def generation_shard_outputs(wildcards):
    n = int(config["generation"]["shards"])
    return [f"results/generation/{wildcards.model}/{wildcards.dataset}/shards/responses_{i}.parquet" for i in range(n)]


def generation_final_outputs():
    """Parsed answers and parse-failure tables of every Study 2 model x dataset."""
    if not enabled("study2"):
        return []
    targets = []
    for model in generation_models():
        for dataset in config["generation"]["datasets"]:
            targets += [f"results/generation/{model}/{dataset}/parsed.parquet",
                        f"results/generation/{model}/{dataset}/parse_failures.tsv"]
    return targets



# --- verifier -----------------------------------------------------------------------


def verifier_evidence_path(source):
    """Provider EVIDENCE table of a Study 1 source: ``provider_{name}.parquet`` where ``name`` is
    the key under ``evidence.providers.<dataset>`` whose ``source`` (else key) is ``source``."""
    d = config["verifier"]["dataset"]
    providers = config.get("evidence", {}).get("providers", {}).get(d, {})
    names = [n for n, spec in providers.items() if (spec or {}).get("source", n) == source]
    if len(names) != 1:
        raise ValueError(f"verifier source {source!r}: expected one provider under evidence.providers.{d} "
                         f"with that source name, found {names}")
    return f"results/evidence/{d}/provider_{names[0]}.parquet"


def verifier_split_sources(split):
    """Sources serialised per split: training inputs come from source 0 only."""
    sources = list(config["verifier"]["sources"])
    return sources[:1] if split == "train" else sources


def verifier_serialise_inputs(wildcards):
    d = config["verifier"]["dataset"]
    inputs = {
        "claims": f"results/ingest/{d}/claims_{wildcards.split}.parquet",
        "units": f"results/ingest/{d}/units.parquet",
        "evidence": [verifier_evidence_path(s) for s in verifier_split_sources(wildcards.split)],
    }
    inputs.update(verifier_base_inputs())
    return inputs


def verifier_base_inputs():
    """The locally built base model directory (demo), else nothing (Hub download)."""
    return {"base": "results/models/verifier_base"} if config["verifier"].get("demo_model") else {}


def verifier_base_model():
    """``{hub_id, revision, use_safetensors}`` the jobs load: the demo directory or the Hub id."""
    v = config["verifier"]
    if v.get("demo_model"):
        return {"hub_id": "results/models/verifier_base", "revision": None, "use_safetensors": True}
    b = v["base_model"]
    return {"hub_id": b["hub_id"], "revision": b["revision"], "use_safetensors": b.get("use_safetensors", True)}


def verifier_checkpoint_seed(wildcards):
    seeds = config["verifier"]["checkpoint_seeds"]
    k = int(wildcards.k)
    if not 1 <= k <= len(seeds):
        raise ValueError(f"verifier checkpoint {k} is outside 1..{len(seeds)} (verifier.checkpoint_seeds)")
    return seeds[k - 1]


def verifier_training_settings():
    v = config["verifier"]
    keys = ("final_update", "batch_size", "grad_accumulation", "learning_rate", "warmup_ratio", "precision")
    out = {k: v[k] for k in keys}
    out.update(label_set=list(v["label_set"]), examples=v["examples_per_checkpoint"],
               weight_decay=v.get("weight_decay", 0.01), max_grad_norm=v.get("max_grad_norm", 1.0))
    return out


def verifier_checkpoints():
    return [f"results/verifier/ckpt{k}" for k in range(1, len(config["verifier"]["checkpoint_seeds"]) + 1)]



# --- scoring ------------------------------------------------------------------------


def scoring_final_outputs():
    """Study 2 indicator tables: evidence indicators + relevant counts per generated dataset,
    answer indicators per model x dataset (``generation.models`` x ``generation.datasets``)."""
    if not enabled("study2"):
        return []
    gen = config.get("generation") or {}
    datasets = list(gen.get("datasets", []))
    targets = []
    for dataset in datasets:
        targets += [f"results/scoring/{dataset}/evidence_indicators.parquet",
                    f"results/scoring/{dataset}/relevant.parquet"]
    for model in gen.get("models", []):
        targets += [f"results/scoring/{model}/{dataset}/answer_indicators.parquet" for dataset in datasets]
    return targets


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

