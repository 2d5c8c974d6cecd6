# Rules of the 'generation' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.
#
# build_demo_models -> plan_requests -> generate (x shards) -> gather_responses -> parse_responses
# The response cache (config generation.cache_dir) lives outside the declared outputs on
# purpose: a killed `generate` job loses its output file but keeps the cached shards, and the
# rerun resumes from them.

GEN_MODEL_RE = "|".join(sorted(config["models"])) or "none"
DEMO_MODEL_RE = "|".join(sorted(demo_built_models())) or "none"


rule build_demo_models:
    input:
        **demo_model_train_inputs(),
    output:
        directory("results/models/{model}"),
    log:
        "logs/generation/build_demo_models_{model}.log",
    benchmark:
        "logs/generation/build_demo_models_{model}.benchmark.tsv"
    params:
        arch=lambda wc: config["models"][wc.model]["build"],
        chat_template_kwargs=lambda wc: config["models"][wc.model].get("chat_template_kwargs", {}),
        code_mappings=config["generation"]["code_mappings"],
        training=config["generation"].get("demo_models", {}),
        conflict=demo_conflict_params(),
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


rule plan_requests:
    input:
        claims="results/sampling/{dataset}/sample.parquet",
        evidence="results/evidence/{dataset}/evidence.parquet",
    output:
        requests="results/generation/{model}/{dataset}/requests.parquet",
    log:
        "logs/generation/plan_requests_{model}_{dataset}.log",
    benchmark:
        "logs/generation/plan_requests_{model}_{dataset}.benchmark.tsv"
    params:
        generation=generation_plan_params(),
        shards=config["generation"]["shards"],
    wildcard_constraints:
        model=GEN_MODEL_RE,
        dataset="fever|feverous|scifact",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/plan_requests.py"


rule generate:
    input:
        requests="results/generation/{model}/{dataset}/requests.parquet",
        model=lambda wc: model_dir_inputs(wc.model),
    output:
        responses="results/generation/{model}/{dataset}/shards/responses_{shard}.parquet",
    log:
        "logs/generation/generate_{model}_{dataset}_{shard}.log",
    benchmark:
        "logs/generation/generate_{model}_{dataset}_{shard}.benchmark.tsv"
    params:
        model_config=lambda wc: config["models"][wc.model],
        backend=config["generation"]["backend"],
        options=lambda wc: generation_backend_options(wc.model),
        cache_dir=lambda wc: f"{config['generation']['cache_dir']}/{wc.model}",
    wildcard_constraints:
        model=GEN_MODEL_RE,
        dataset="fever|feverous|scifact",
        shard=r"\d+",
    threads: 1
    resources:
        mem_mb=16000,
        runtime=240,
        **gpu_resources(lambda wc: model_gpus(wc.model)),
    conda:
        "../../envs/gpu-vllm.yaml" if config["generation"]["backend"] == "vllm" else "../../envs/cpu.yaml"
    script:
        "../../scripts/generate.py"


rule gather_responses:
    input:
        requests="results/generation/{model}/{dataset}/requests.parquet",
        shards=generation_shard_outputs,
    output:
        responses="results/generation/{model}/{dataset}/responses.parquet",
    log:
        "logs/generation/gather_responses_{model}_{dataset}.log",
    benchmark:
        "logs/generation/gather_responses_{model}_{dataset}.benchmark.tsv"
    wildcard_constraints:
        model=GEN_MODEL_RE,
        dataset="fever|feverous|scifact",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/gather_responses.py"


rule parse_responses:
    input:
        requests="results/generation/{model}/{dataset}/requests.parquet",
        responses="results/generation/{model}/{dataset}/responses.parquet",
    output:
        parsed="results/generation/{model}/{dataset}/parsed.parquet",
        failures=report(
            "results/generation/{model}/{dataset}/parse_failures.tsv",
            caption="../report/generation_parse_failures.rst",
            category="Generation",
            subcategory="{model} {dataset}",
        ),
    log:
        "logs/generation/parse_responses_{model}_{dataset}.log",
    benchmark:
        "logs/generation/parse_responses_{model}_{dataset}.benchmark.tsv"
    params:
        code_mappings=config["generation"]["code_mappings"],
    wildcard_constraints:
        model=GEN_MODEL_RE,
        dataset="fever|feverous|scifact",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/parse_responses.py"


FINAL_OUTPUTS["generation"] = generation_final_outputs
