# Rules that build the embedded demo's small local models (code: src/evidence_ledger/demo/).
# Directive order: input, output, log, benchmark, params, threads, resources, conda, script.
# Config reaches scripts only through params.
#
# build_demo_models    -> results/models/{model}          (models.<name>.build; generation, conflict)
# build_demo_reranker  -> retrieval.reranker.local_dir    (retrieval.reranker.build; order_bge)
# build_demo_verifier  -> results/models/verifier_base    (verifier.demo_model; verifier rules)
# The paper config sets none of these switches, so none of these rules runs there.


def demo_built_models():
    """Models the demo builds locally (``models.<name>.build`` set)."""
    return [m for m, c in config["models"].items() if c.get("build")]


def demo_models_setting(key):
    """One training setting of the demo chat models (``generation.demo_models.<key>``), None when
    unset (the stage function then uses its default)."""
    return config["generation"].get("demo_models", {}).get(key)


def demo_conflict_tasks():
    """``generation.demo_models.conflict_tasks`` (empty when unset)."""
    return config["generation"].get("demo_models", {}).get("conflict_tasks") or {}


def demo_conflict_tasks_on():
    """Whether the demo models also learn the conflict stage's prompts (``demo_models.conflict_tasks``).

    Only the tasks of enabled studies (``studies.wikicontradict``, ``studies.diffgr``) are added."""
    return bool(demo_conflict_tasks().get("enabled", False))


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


def demo_conflict_params():
    """The conflict stage's prompt settings the demo models' conflict-task mixture renders with
    (``templates``, ``passage_version``, ``reader_prompt``, ``closed_book_prompt``); all None
    when the conflict tasks are off."""
    keys = ("templates", "passage_version", "reader_prompt", "closed_book_prompt")
    if not demo_conflict_tasks_on():
        return dict.fromkeys(keys)
    wc, dg = config.get("wikicontradict") or {}, config.get("diffgr") or {}
    return {
        "templates": wc.get("templates", []),
        "passage_version": wc.get("passage_version", "rag_qa"),
        "reader_prompt": dg.get("prompt", ""),
        "closed_book_prompt": dg.get("closed_book_prompt", ""),
    }


def demo_reranker_build():
    """``retrieval.reranker.build`` (None: the reranker is loaded from the Hub)."""
    return config["retrieval"]["reranker"].get("build")


def demo_reranker_inputs():
    """Inputs of build_demo_reranker, per dataset of ``retrieval.reranker.build.datasets`` (in
    config order): corpus indexes, units, and the training claims of the listed splits."""
    b = demo_reranker_build()
    if not b:
        raise ValueError("retrieval.reranker.build is not set; the reranker is loaded from the Hub")
    ds = list(b["datasets"])
    return {"index": [f"results/retrieval/{d}/index" for d in ds],
            "units": [f"results/ingest/{d}/units.parquet" for d in ds],
            "claims": [f"results/ingest/{d}/claims_{s}.parquet" for d in ds for s in b["datasets"][d]]}


def demo_reranker_claims_per_dataset():
    """Per training dataset (config order): how many of the ``claims`` inputs are its tables."""
    b = demo_reranker_build() or {"datasets": {}}
    return [len(splits) for splits in b["datasets"].values()]


def demo_reranker_docs_per_claim():
    """Per training dataset (config order): documents retrieved per claim (``retrieval_k``)."""
    b = demo_reranker_build() or {"datasets": {}}
    return [retrieval_k(d) for d in b["datasets"]]


def demo_reranker_train_settings():
    """The tiny reranker's model and training spec (``retrieval.reranker.build.train``)."""
    b = demo_reranker_build() or {}
    return dict(b.get("train", {}))


DEMO_MODEL_RE = "|".join(sorted(demo_built_models())) or "none"


rule build_demo_models:
    input:
        **demo_model_train_inputs(),
    output:
        directory("results/models/{model}"),
    log:
        "logs/demo/build_demo_models/{model}.log",
    benchmark:
        "logs/demo/build_demo_models/{model}.benchmark.tsv"
    params:
        arch=lambda wc: config["models"][wc.model]["build"],
        chat_template_kwargs=lambda wc: config["models"][wc.model].get("chat_template_kwargs", {}),
        code_mappings=config["generation"]["code_mappings"],
        steps=demo_models_setting("steps"),
        batch_size=demo_models_setting("batch_size"),
        lr=demo_models_setting("lr"),
        seed=demo_models_setting("seed"),
        vocab_size=demo_models_setting("vocab_size"),
        max_seconds=demo_models_setting("max_seconds"),
        conflict_tasks=demo_conflict_tasks_on(),
        conflict_steps=demo_conflict_tasks().get("steps", 0),
        conflict_weights=demo_conflict_tasks().get("weights", {}),
        templates=demo_conflict_params()["templates"],
        passage_version=demo_conflict_params()["passage_version"],
        # functions, so that Snakemake does not read the prompts' {placeholders} as wildcards
        reader_prompt=lambda wc: demo_conflict_params()["reader_prompt"],
        closed_book_prompt=lambda wc: demo_conflict_params()["closed_book_prompt"],
    wildcard_constraints:
        model=DEMO_MODEL_RE,
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/build_demo_models.py"


rule build_demo_reranker:
    input:
        unpack(lambda wc: demo_reranker_inputs()),
    output:
        model=directory(config["retrieval"]["reranker"].get("local_dir") or "results/models/reranker"),
    log:
        "logs/demo/build_demo_reranker.log",
    benchmark:
        "logs/demo/build_demo_reranker.benchmark.tsv"
    params:
        claims_per_dataset=demo_reranker_claims_per_dataset(),
        docs_per_claim=demo_reranker_docs_per_claim(),
        max_units=config["retrieval"]["max_pool_units"],
        pool_kinds=config["retrieval"]["pool_kinds"],
        train=demo_reranker_train_settings(),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/build_demo_reranker.py"


rule build_demo_verifier:
    input:
        claims=f"results/ingest/{config['verifier']['dataset']}/claims_train.parquet",
        units=f"results/ingest/{config['verifier']['dataset']}/units.parquet",
    output:
        directory("results/models/verifier_base"),
    log:
        "logs/demo/build_demo_verifier.log",
    benchmark:
        "logs/demo/build_demo_verifier.benchmark.tsv"
    params:
        spec=config["verifier"]["demo_model"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/build_demo_verifier.py"


# results/models/{model} (build_demo_models) also matches the reranker directory
ruleorder: build_demo_reranker > build_demo_models
