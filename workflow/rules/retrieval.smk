# Rules of the 'retrieval' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.


rule index_corpus:
    input:
        documents="results/ingest/{dataset}/documents.parquet",
    output:
        index=directory("results/retrieval/{dataset,[a-z0-9]+}/index"),
    log:
        "logs/retrieval/{dataset}/index_corpus.log",
    benchmark:
        "logs/retrieval/{dataset}/index_corpus.benchmark.tsv"
    params:
        bm25=lambda wc: dict(config["retrieval"]["corpus_bm25"]),
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/index_corpus.py"


rule retrieve:
    input:
        index="results/retrieval/{dataset}/index",
        claims=lambda wc: retrieval_claim_inputs(wc.dataset),
        units="results/ingest/{dataset}/units.parquet",
    output:
        retrieved="results/retrieval/{dataset,[a-z0-9]+}/retrieved.parquet",
    log:
        "logs/retrieval/{dataset}/retrieve.log",
    benchmark:
        "logs/retrieval/{dataset}/retrieve.benchmark.tsv"
    params:
        k=lambda wc: retrieval_k(wc.dataset),
    threads: 1
    resources:
        mem_mb=8000,
        runtime=120,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/retrieve.py"


rule build_pools:
    input:
        retrieved="results/retrieval/{dataset}/retrieved.parquet",
        units="results/ingest/{dataset}/units.parquet",
    output:
        pools="results/retrieval/{dataset,[a-z0-9]+}/pools.parquet",
    log:
        "logs/retrieval/{dataset}/build_pools.log",
    benchmark:
        "logs/retrieval/{dataset}/build_pools.benchmark.tsv"
    params:
        max_units=config["retrieval"]["max_pool_units"],
        pool_kinds=config["retrieval"]["pool_kinds"],
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/build_pools.py"


rule order_bm25:
    input:
        pools="results/retrieval/{dataset}/pools.parquet",
        retrieved="results/retrieval/{dataset}/retrieved.parquet",
        units="results/ingest/{dataset}/units.parquet",
    output:
        ordering="results/retrieval/{dataset,[a-z0-9]+}/ordering_bm25.parquet",
    log:
        "logs/retrieval/{dataset}/order_bm25.log",
    benchmark:
        "logs/retrieval/{dataset}/order_bm25.benchmark.tsv"
    params:
        bm25=dict(config["retrieval"]["pool_bm25"]),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/order_bm25.py"


rule build_demo_reranker:
    input:
        unpack(lambda wc: demo_reranker_inputs()),
    output:
        model=directory(config["retrieval"]["reranker"].get("local_dir") or "results/models/reranker"),
    log:
        "logs/retrieval/build_demo_reranker.log",
    benchmark:
        "logs/retrieval/build_demo_reranker.benchmark.tsv"
    params:
        sources=demo_reranker_sources(),
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


rule order_bge:
    input:
        unpack(lambda wc: reranker_inputs()),
        pools="results/retrieval/{dataset}/pools.parquet",
        retrieved="results/retrieval/{dataset}/retrieved.parquet",
        units="results/ingest/{dataset}/units.parquet",
    output:
        ordering="results/retrieval/{dataset,[a-z0-9]+}/ordering_bge.parquet",
    log:
        "logs/retrieval/{dataset}/order_bge.log",
    benchmark:
        "logs/retrieval/{dataset}/order_bge.benchmark.tsv"
    params:
        spec=reranker_spec(),
        claims_per_call=config["retrieval"]["reranker"]["claims_per_call"],
    threads: 1
    resources:
        mem_mb=16000,
        runtime=240,
        **gpu_resources(1),
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/order_bge.py"


rule assemble_evidence:
    input:
        tokenizers=budget_tokenizer_inputs(),
        bm25="results/retrieval/{dataset}/ordering_bm25.parquet",
        bge="results/retrieval/{dataset}/ordering_bge.parquet",
        retrieved="results/retrieval/{dataset}/retrieved.parquet",
        claims=lambda wc: retrieval_claim_inputs(wc.dataset),
        units="results/ingest/{dataset}/units.parquet",
    output:
        evidence="results/evidence/{dataset,[a-z0-9]+}/evidence.parquet",
    log:
        "logs/evidence/{dataset}/assemble_evidence.log",
    benchmark:
        "logs/evidence/{dataset}/assemble_evidence.benchmark.tsv"
    params:
        tokenizers=budget_tokenizer_specs(),
        budgets=dict(config["evidence"]["budgets"]),
        caps=lambda wc: scored_prefix_caps(wc.dataset),
        per_document=lambda wc: retrieval_per_document(wc.dataset),
        controls=list(config["evidence"]["controls"]),
        swap_seed=config["evidence"]["swap_seed"],
    threads: 1
    resources:
        mem_mb=8000,
        runtime=120,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/assemble_evidence.py"


rule export_provider_submissions:
    input:
        ordering=lambda wc: f"results/retrieval/{wc.dataset}/ordering_{provider_export_source(wc)}.parquet",
        claims=lambda wc: provider_claim_inputs(wc.dataset),
    output:
        submission="results/evidence/{dataset,[a-z0-9]+}/submissions/provider_{name,[A-Za-z0-9_-]+}.jsonl",
    log:
        "logs/evidence/{dataset}/export_provider_submissions_{name}.log",
    benchmark:
        "logs/evidence/{dataset}/export_provider_submissions_{name}.benchmark.tsv"
    params:
        max_ids=config["evidence"].get("export_max_ids"),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/export_provider_submissions.py"


rule import_evidence_source:
    input:
        tokenizers=budget_tokenizer_inputs(),
        submission=provider_submission_input,
        claims=lambda wc: provider_claim_inputs(wc.dataset),
        units="results/ingest/{dataset}/units.parquet",
    output:
        evidence="results/evidence/{dataset,[a-z0-9]+}/provider_{name,[A-Za-z0-9_-]+}.parquet",
        summary="results/evidence/{dataset}/provider_{name}.summary.json",
    log:
        "logs/evidence/{dataset}/import_evidence_source_{name}.log",
    benchmark:
        "logs/evidence/{dataset}/import_evidence_source_{name}.benchmark.tsv"
    params:
        source=provider_source_name,
        tokenizers=budget_tokenizer_specs(),
        caps=lambda wc: scored_prefix_caps(wc.dataset),
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/import_evidence_source.py"


rule evidence_diagnostics:
    input:
        unpack(evidence_diagnostics_inputs),
    output:
        tsv=report("results/evidence/{dataset,[a-z0-9]+}/diagnostics.tsv", caption="../report/retrieval_diagnostics.rst",
                   category="Retrieval", subcategory="{dataset}"),
    log:
        "logs/evidence/{dataset}/evidence_diagnostics.log",
    benchmark:
        "logs/evidence/{dataset}/evidence_diagnostics.benchmark.tsv"
    params:
        per_document=lambda wc: retrieval_per_document(wc.dataset),
        needs_no_evidence=lambda wc: list(config["evidence"]["needs_no_evidence"].get(wc.dataset, [])),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/evidence_diagnostics.py"


FINAL_OUTPUTS["retrieval"] = retrieval_final_outputs


# results/models/{model} (generation's build_demo_models) also matches the reranker directory
ruleorder: build_demo_reranker > build_demo_models
