# Rules of the 'retrieval' stage: corpus index, top-k documents per claim, candidate pools
# and their bm25 / bge orderings (retrieval.stage). The evidence stage (evidence.smk,
# included next) reads the same claims through retrieval_claim_inputs and
# retrieval_per_document. Directive order: input, output, log, benchmark, params, threads,
# resources, conda, script. Config reaches scripts only through params.


def retrieval_per_document(dataset):
    """True where the unit of evaluation is claim x abstract (the benchmark registry's ``unit``)."""
    return get_benchmark(dataset).per_document


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
    """Reranker settings for order_bge (``local_dir`` wins over ``hub_id``/``revision``): one
    ``retrieval.reranker.RerankerSpec``."""
    r = config["retrieval"]["reranker"]
    return {"hub_id": r["hub_id"], "revision": r["revision"], "local_dir": r.get("local_dir"),
            "batch_size": r["batch_size"], "fp16": r["fp16"], "max_length": r["max_length"]}


def reranker_inputs():
    """The locally built reranker directory when ``retrieval.reranker.build`` is set, else nothing."""
    r = config["retrieval"]["reranker"]
    return {"reranker": r["local_dir"]} if r.get("build") and r.get("local_dir") else {}


rule index_corpus:
    input:
        documents="results/ingest/{dataset}/documents.parquet",
    output:
        index=directory("results/retrieval/{dataset}/index"),
    log:
        "logs/retrieval/index_corpus/{dataset}.log",
    benchmark:
        "logs/retrieval/index_corpus/{dataset}.benchmark.tsv"
    params:
        method=config["retrieval"]["corpus_bm25"]["method"],
        k1=config["retrieval"]["corpus_bm25"]["k1"],
        b=config["retrieval"]["corpus_bm25"]["b"],
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
        retrieved="results/retrieval/{dataset}/retrieved.parquet",
    log:
        "logs/retrieval/retrieve/{dataset}.log",
    benchmark:
        "logs/retrieval/retrieve/{dataset}.benchmark.tsv"
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
        pools="results/retrieval/{dataset}/pools.parquet",
    log:
        "logs/retrieval/build_pools/{dataset}.log",
    benchmark:
        "logs/retrieval/build_pools/{dataset}.benchmark.tsv"
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
        ordering="results/retrieval/{dataset}/ordering_bm25.parquet",
    log:
        "logs/retrieval/order_bm25/{dataset}.log",
    benchmark:
        "logs/retrieval/order_bm25/{dataset}.benchmark.tsv"
    params:
        k1=config["retrieval"]["pool_bm25"]["k1"],
        b=config["retrieval"]["pool_bm25"]["b"],
        epsilon=config["retrieval"]["pool_bm25"]["epsilon"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/order_bm25.py"


rule order_bge:
    input:
        unpack(lambda wc: reranker_inputs()),
        pools="results/retrieval/{dataset}/pools.parquet",
        retrieved="results/retrieval/{dataset}/retrieved.parquet",
        units="results/ingest/{dataset}/units.parquet",
    output:
        ordering="results/retrieval/{dataset}/ordering_bge.parquet",
    log:
        "logs/retrieval/order_bge/{dataset}.log",
    benchmark:
        "logs/retrieval/order_bge/{dataset}.benchmark.tsv"
    params:
        reranker=reranker_spec(),
        claims_per_call=config["retrieval"]["reranker"]["claims_per_call"],
    threads: 1
    resources:
        mem_mb=16000,
        runtime=240,
        gpu=1,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/order_bge.py"


