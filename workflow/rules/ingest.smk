# Rules of the 'ingest' stage: each benchmark's release files -> canonical tables under
# results/ingest/ (datasets.stage). Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.

CLAIM_DATASETS = benchmark_names()
CONFLICT_QA_DATASETS = ("nqcc", "tqacc")
# the corpus file of each claim dataset, under config data.<dataset>.<key>
CORPUS_KEY = {b.name: b.corpus_key for b in benchmarks()}


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


def wikicontradict_standalone_fields():
    """Instance fields that must read on their own (config ``data.wikicontradict.standalone_fields``)."""
    return config["data"]["wikicontradict"].get("standalone_fields", ["paragraph_A_clean", "paragraph_B_clean"])


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



# One ingest rule per registered benchmark (evidence_ledger.benchmark_registry): ingest_fever,
# ingest_feverous, ingest_scifact and those of config benchmark_plugins; the script and the
# resources come from the benchmark's registry entry.
for _bench in benchmarks():

    rule:
        name:
            f"ingest_{_bench.name}"
        input:
            unpack(lambda wc, name=_bench.name: ingest_inputs(name)),
        output:
            claims=ingest_claims_outputs(_bench.name),
            units=f"results/ingest/{_bench.name}/units.parquet",
            documents=f"results/ingest/{_bench.name}/documents.parquet",
        log:
            f"logs/ingest/ingest_{_bench.name}.log",
        benchmark:
            f"logs/ingest/ingest_{_bench.name}.benchmark.tsv"
        params:
            splits=ingest_splits(_bench.name),
            on_unresolved=ingest_on_unresolved(_bench.name),
        threads: 1
        resources:
            mem_mb=_bench.ingest_resources["mem_mb"],
            runtime=_bench.ingest_resources["runtime"],
        conda:
            "../../envs/cpu.yaml"
        script:
            _bench.script if os.path.isabs(_bench.script) else f"../../{_bench.script}"


rule ingest_wikicontradict:
    input:
        unpack(lambda wc: wikicontradict_inputs()),
    output:
        instances="results/ingest/wikicontradict/instances.parquet",
    log:
        "logs/ingest/ingest_wikicontradict.log",
    benchmark:
        "logs/ingest/ingest_wikicontradict.benchmark.tsv"
    params:
        standalone_fields=lambda wc: wikicontradict_standalone_fields(),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/ingest_wikicontradict.py"


rule ingest_conflict_qa:
    input:
        records=lambda wc: data_path(config["data"][wc.dataset]["records"]),
    output:
        records="results/ingest/{dataset}/records.parquet",
    log:
        "logs/ingest/ingest_conflict_qa/{dataset}.log",
    benchmark:
        "logs/ingest/ingest_conflict_qa/{dataset}.benchmark.tsv"
    params:
        dataset=lambda wc: wc.dataset,
    wildcard_constraints:
        dataset="nqcc|tqacc",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/ingest_conflict_qa.py"

