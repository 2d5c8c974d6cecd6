# Rules of the 'retrieval' stage: corpus index, top-k documents per claim, candidate pools
# and their bm25 / bge orderings (retrieval.stage). The evidence stage (evidence.smk,
# included next) reads the same claims through retrieval_claim_inputs and
# retrieval_per_document. Directive order: input, output, log, benchmark, params, threads,
# resources, conda, script. Config reaches the stage functions only through params.

include: "retrieval_functions.smk"


rule index_corpus:
    input:
        documents=INGEST("documents"),
    output:
        index=directory(RETRIEVAL("index")),
    log:
        log_file("retrieval", "index_corpus", "{dataset}"),
    benchmark:
        timing_file("retrieval", "index_corpus", "{dataset}")
    params:
        method=config["retrieval"]["corpus_bm25"]["method"],
        k1=config["retrieval"]["corpus_bm25"]["k1"],
        b=config["retrieval"]["corpus_bm25"]["b"],
    threads: 1
    priority: 85
    resources:
        mem_mb=rule_resources.resource("index_corpus", "mem_mb"),
        runtime=rule_resources.resource("index_corpus", "runtime"),
        disk_mb=rule_resources.resource("index_corpus", "disk_mb"),
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule retrieve:
    input:
        index=RETRIEVAL("index"),
        claims=lambda wc: retrieval_claim_inputs(wc.dataset),
        units=INGEST("units"),
    output:
        retrieved=RETRIEVAL("retrieved"),
    log:
        log_file("retrieval", "retrieve", "{dataset}"),
    benchmark:
        timing_file("retrieval", "retrieve", "{dataset}")
    params:
        k=lambda wc: retrieval_k(wc.dataset),
    threads: 1
    priority: 85
    resources:
        mem_mb=rule_resources.resource("retrieve", "mem_mb"),
        runtime=rule_resources.resource("retrieve", "runtime"),
        disk_mb=rule_resources.resource("retrieve", "disk_mb"),
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule build_pools:
    input:
        retrieved=RETRIEVAL("retrieved"),
        units=INGEST("units"),
    output:
        pools=RETRIEVAL("pools"),
    log:
        log_file("retrieval", "build_pools", "{dataset}"),
    benchmark:
        timing_file("retrieval", "build_pools", "{dataset}")
    params:
        max_units=config["retrieval"]["max_pool_units"],
        pool_kinds=config["retrieval"]["pool_kinds"],
    threads: 1
    priority: 85
    resources:
        mem_mb=rule_resources.resource("build_pools", "mem_mb"),
        runtime=rule_resources.resource("build_pools", "runtime"),
        disk_mb=rule_resources.resource("build_pools", "disk_mb"),
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule order_bm25:
    input:
        pools=RETRIEVAL("pools"),
        retrieved=RETRIEVAL("retrieved"),
        units=INGEST("units"),
    output:
        ordering=RETRIEVAL("ordering", source="bm25"),
    log:
        log_file("retrieval", "order_bm25", "{dataset}"),
    benchmark:
        timing_file("retrieval", "order_bm25", "{dataset}")
    params:
        k1=config["retrieval"]["pool_bm25"]["k1"],
        b=config["retrieval"]["pool_bm25"]["b"],
        epsilon=config["retrieval"]["pool_bm25"]["epsilon"],
    threads: 1
    priority: 85
    resources:
        mem_mb=rule_resources.resource("order_bm25", "mem_mb"),
        runtime=rule_resources.resource("order_bm25", "runtime"),
        disk_mb=rule_resources.resource("order_bm25", "disk_mb"),
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule order_bge:
    input:
        lambda wc: reranker_inputs(),  # a locally built reranker, named by params.reranker
        pools=RETRIEVAL("pools"),
        retrieved=RETRIEVAL("retrieved"),
        units=INGEST("units"),
    output:
        ordering=RETRIEVAL("ordering", source="bge"),
    log:
        log_file("retrieval", "order_bge", "{dataset}"),
    benchmark:
        timing_file("retrieval", "order_bge", "{dataset}")
    params:
        reranker=reranker_spec(),
        claims_per_call=config["retrieval"]["reranker"]["claims_per_call"],
    threads: 1
    priority: 80
    resources:
        mem_mb=rule_resources.resource("order_bge", "mem_mb"),
        runtime=rule_resources.resource("order_bge", "runtime"),
        disk_mb=rule_resources.resource("order_bge", "disk_mb"),
        **gpu_resources(1),
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
