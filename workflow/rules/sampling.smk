# Rules of the 'sampling' stage: claim families and the Study 2 claim samples
# (sampling.stage). Directive order: input, output, log, benchmark, params, threads,
# resources, conda, script. Config reaches scripts only through params.


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



rule build_families:
    input:
        claims=lambda wc: family_claim_inputs(wc.dataset),
    output:
        families="results/families/{dataset}/families.parquet",
        links="results/families/{dataset}/family_links.parquet",
        summary=report(
            "results/families/{dataset}/families_summary.tsv",
            caption="../report/families.rst",
            category="Sampling",
            subcategory="{dataset}",
        ),
    log:
        "logs/sampling/build_families/{dataset}.log",
    benchmark:
        "logs/sampling/build_families/{dataset}.benchmark.tsv"
    params:
        dataset=lambda wc: wc.dataset,
        negation_tokens=config["families"]["negation_tokens"],
        top_k=config["families"]["top_k"],
        threshold=config["families"]["near_duplicate_threshold"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/build_families.py"


rule sample_claims:
    input:
        unpack(lambda wc: sample_inputs(wc.dataset)),
    output:
        sample="results/sampling/{dataset}/sample.parquet",
        summary=report(
            "results/sampling/{dataset}/sample_summary.tsv",
            caption="../report/sample_summary.rst",
            category="Sampling",
            subcategory="{dataset}",
        ),
    log:
        "logs/sampling/sample_claims/{dataset}.log",
    benchmark:
        "logs/sampling/sample_claims/{dataset}.benchmark.tsv"
    params:
        method=lambda wc: config["sampling"][wc.dataset]["method"],
        salt=lambda wc: config["sampling"][wc.dataset].get("salt", ""),
        n=lambda wc: config["sampling"][wc.dataset].get("n"),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/sample_claims.py"

