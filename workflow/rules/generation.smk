# Rules of the 'generation' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params.
#
# build_demo_models -> plan_requests -> generate (x shards) -> gather_responses -> parse_responses
# The response cache (config generation.cache_dir) lives outside the declared outputs on
# purpose: a killed `generate` job loses its output file but keeps the cached shards, and the
# rerun resumes from them.
#
# Shared with the conflict stage (in common.smk): generation_backend(_options), model_gpus,
# generation_cache_dir, generation_conda_env. Demo-model helpers: see the demo rules.

include: "generation_functions.smk"


rule plan_requests:
    input:
        claims=SAMPLING("sample"),
        evidence=EVIDENCE("evidence"),
    output:
        requests=GENERATION("requests"),
    log:
        log_file("generation", "plan_requests", "{model}_{dataset}"),
    benchmark:
        timing_file("generation", "plan_requests", "{model}_{dataset}")
    params:
        model=lambda wc: wc.model,
        dataset=lambda wc: wc.dataset,
        seeds=GEN_CFG["seeds"],
        temperature=GEN_CFG["sampling"]["temperature"],
        top_p=GEN_CFG["sampling"]["top_p"],
        top_k=GEN_CFG["sampling"]["top_k"],
        repetition_penalty=GEN_CFG["sampling"]["repetition_penalty"],
        max_new_tokens=GEN_CFG["max_new_tokens"],
        formats=GEN_CFG["formats"],
        sources=GEN_CFG["sources"],
        budgets=GEN_CFG["budgets"],
        code_mappings=GEN_CFG["code_mappings"],
        control_sources=GEN_CFG["controls"]["sources"],
        control_budgets=GEN_CFG["controls"]["budgets"],
        control_formats=GEN_CFG["controls"]["formats"],
        control_code_mapping_budgets=GEN_CFG["controls"]["code_mapping_budgets"],
        control_design=GEN_CFG["controls"]["design"],
        shards=GEN_CFG["shards"],
    wildcard_constraints:
        model=GEN_MODEL_RE,
    threads: 1
    priority: 30
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule generate:
    input:
        lambda wc: model_dir_inputs(wc.model),  # a locally built model, named by params.model_spec
        requests=GENERATION("requests"),
    output:
        responses=GENERATION("shard_responses"),
    log:
        log_file("generation", "generate", "{model}_{dataset}_{shard}"),
    benchmark:
        timing_file("generation", "generate", "{model}_{dataset}_{shard}")
    params:
        model=lambda wc: wc.model,
        shard=lambda wc: int(wc.shard),
        model_spec=lambda wc: generation_model_spec(wc.model),
        backend=lambda wc: generation_backend(wc.model),
        backend_options=lambda wc: generation_backend_options(wc.model),
        cache_dir=lambda wc: generation_cache_dir(wc.model),
        call_size=GEN_CFG["call_size"],
    wildcard_constraints:
        model=GEN_MODEL_RE,
        shard=r"\d+",
    threads: 1
    priority: 30
    resources:
        mem_mb=16000,
        runtime=240,
        **gpu_resources(lambda wc: model_gpus(wc.model)),
    conda:
        generation_conda_env()
    script:
        "../../scripts/call_stage.py"


rule gather_responses:
    input:
        requests=GENERATION("requests"),
        shards=generation_shard_outputs,
    output:
        responses=GENERATION("responses"),
    log:
        log_file("generation", "gather_responses", "{model}_{dataset}"),
    benchmark:
        timing_file("generation", "gather_responses", "{model}_{dataset}")
    wildcard_constraints:
        model=GEN_MODEL_RE,
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule parse_responses:
    input:
        requests=GENERATION("requests"),
        responses=GENERATION("responses"),
    output:
        parsed=GENERATION("parsed"),
        failures=report(
            GENERATION("parse_failures"),
            caption="../report/generation_parse_failures.rst",
            category="Generation",
            subcategory="{model} {dataset}",
        ),
    log:
        log_file("generation", "parse_responses", "{model}_{dataset}"),
    benchmark:
        timing_file("generation", "parse_responses", "{model}_{dataset}")
    params:
        code_mappings=GEN_CFG["code_mappings"],
    wildcard_constraints:
        model=GEN_MODEL_RE,
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule generation_plan:
    input:
        # the planner reads these under params.workdir; after generation, so that output tokens come
        # from the cached answers in every run
        expand(EVIDENCE("evidence"), dataset=GEN_CFG["datasets"]),
        expand(GENERATION("parsed"), model=GEN_CFG["models"],
                      dataset=GEN_CFG["datasets"]),
        [d for m in GEN_CFG["models"] for d in model_dir_inputs(m)],
    output:
        out=report(
            GENERATION("plan"),
            caption="../report/generation_plan.rst",
            category="Provenance",
        ),
    log:
        log_file("generation", "generation_plan"),
    benchmark:
        timing_file("generation", "generation_plan")
    params:
        config=planner_config(),
        workdir=".",
        data_root=data_path("."),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
