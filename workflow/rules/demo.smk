# Rules that build the embedded demo's small local models (code: src/evidence_ledger/demo/).
# Directive order: input, output, log, benchmark, params, threads, resources, conda, script.
# Config reaches the stage functions only through params.
#
# build_demo_models    -> results/models/{model}          (models.<name>.build; generation, conflict)
# build_demo_reranker  -> retrieval.reranker.local_dir    (retrieval.reranker.build; order_bge)
# build_demo_verifier  -> results/models/verifier_base    (verifier.demo_model; verifier rules)
# The paper config sets none of these switches, so none of these rules runs there.

include: "demo_functions.smk"


rule build_demo_models:
    input:
        **demo_model_train_inputs(),
    output:
        out=directory(DEMO("model")),
    log:
        log_file("demo", "build_demo_models", "{model}"),
    benchmark:
        timing_file("demo", "build_demo_models", "{model}")
    params:
        arch=lambda wc: config["models"][wc.model]["build"],
        chat_template_kwargs=lambda wc: config["models"][wc.model].get("chat_template_kwargs", {}),
        code_mappings=config["generation"]["code_mappings"],
        steps=demo_models_setting("steps"),
        batch_size=demo_models_setting("batch_size"),
        lr=demo_models_setting("lr"),
        seed=demo_models_setting("seed"),
        vocab_size=demo_models_setting("vocab_size"),
        tokenizer=lambda wc: demo_tokenizer_dir(config["models"][wc.model]["build"]),
        conflict_tasks=demo_conflict_tasks_on(),
        conflict_steps=demo_conflict_tasks().get("steps", 0),
        conflict_weights=demo_conflict_tasks().get("weights", {}),
        templates=demo_conflict_params()["templates"],
        passage_version=demo_conflict_params()["passage_version"],
        # functions, so that Snakemake does not read the prompts' {placeholders} as wildcards
        reader_prompt=lambda wc: demo_conflict_params()["reader_prompt"],
        closed_book_prompt=lambda wc: demo_conflict_params()["closed_book_prompt"],
        reader_system_message=lambda wc: demo_reader_system_message(wc.model),
    wildcard_constraints:
        model=DEMO_MODEL_RE,
    threads: 1
    priority: 70
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule build_demo_reranker:
    input:
        unpack(lambda wc: demo_reranker_inputs()),
    output:
        out=directory(config["retrieval"]["reranker"]["local_dir"] or DEMO("model", model="reranker")),
    log:
        log_file("demo", "build_demo_reranker"),
    benchmark:
        timing_file("demo", "build_demo_reranker")
    params:
        claims_per_dataset=demo_reranker_claims_per_dataset(),
        docs_per_claim=demo_reranker_docs_per_claim(),
        max_units=config["retrieval"]["max_pool_units"],
        pool_kinds=config["retrieval"]["pool_kinds"],
        train=demo_reranker_train_settings(),
    threads: 1
    priority: 90
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule build_demo_verifier:
    input:
        claims=INGEST("claims", dataset=config['verifier']['dataset'], split="train"),
        units=INGEST("units", dataset=config['verifier']['dataset']),
    output:
        out=directory(DEMO("model", model="verifier_base")),
    log:
        log_file("demo", "build_demo_verifier"),
    benchmark:
        timing_file("demo", "build_demo_verifier")
    params:
        spec=config["verifier"]["demo_model"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


# results/models/{model} (build_demo_models) also matches the reranker directory
ruleorder: build_demo_reranker > build_demo_models
