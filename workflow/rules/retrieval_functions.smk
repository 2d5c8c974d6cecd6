# Input functions, constants and the target hook of the 'retrieval' stage; its rules are in
# retrieval.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

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
    if enabled("study2") and dataset in config["sampling"]:
        paths.append(SAMPLING("sample", dataset=dataset))
    for split in config["retrieval"]["extra_claim_splits"].get(dataset, []):
        paths.append(INGEST("claims", dataset=dataset, split=split))
    if not paths:
        raise ValueError(f"retrieval: no claims for dataset {dataset!r} (enable study2 with sampling, "
                         f"or list splits under retrieval.extra_claim_splits)")
    return paths


def reranker_spec():
    """Reranker settings for order_bge (``local_dir`` wins over ``hub_id``/``revision``): one
    ``retrieval.reranker.RerankerSpec``."""
    r = config["retrieval"]["reranker"]
    return {"hub_id": r["hub_id"], "revision": r["revision"], "local_dir": r["local_dir"],
            "batch_size": r["batch_size"], "fp16": r["fp16"], "max_length": r["max_length"],
            "allow_pickle_weights": r["allow_pickle_weights"]}


def reranker_inputs():
    """The locally built reranker directory when ``retrieval.reranker.build`` is set, else nothing."""
    r = config["retrieval"]["reranker"]
    return [r["local_dir"]] if r["build"] and r["local_dir"] else []
