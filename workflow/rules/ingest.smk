# Rules of the 'ingest' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.


rule ingest_fever:
    input:
        unpack(lambda wc: ingest_inputs("fever")),
    output:
        claims=ingest_claims_outputs("fever"),
        units="results/ingest/fever/units.parquet",
        documents="results/ingest/fever/documents.parquet",
    log:
        "logs/ingest/fever.log",
    benchmark:
        "logs/ingest/fever.benchmark.tsv"
    params:
        splits=ingest_splits("fever"),
        on_unresolved=ingest_on_unresolved("fever"),
        data_root=data_path("."),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/ingest_fever.py"


rule ingest_feverous:
    input:
        unpack(lambda wc: ingest_inputs("feverous")),
    output:
        claims=ingest_claims_outputs("feverous"),
        units="results/ingest/feverous/units.parquet",
        documents="results/ingest/feverous/documents.parquet",
    log:
        "logs/ingest/feverous.log",
    benchmark:
        "logs/ingest/feverous.benchmark.tsv"
    params:
        splits=ingest_splits("feverous"),
        on_unresolved=ingest_on_unresolved("feverous"),
    threads: 1
    resources:
        mem_mb=8000,
        runtime=120,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/ingest_feverous.py"


rule ingest_scifact:
    input:
        unpack(lambda wc: ingest_inputs("scifact")),
    output:
        claims=ingest_claims_outputs("scifact"),
        units="results/ingest/scifact/units.parquet",
        documents="results/ingest/scifact/documents.parquet",
    log:
        "logs/ingest/scifact.log",
    benchmark:
        "logs/ingest/scifact.benchmark.tsv"
    params:
        splits=ingest_splits("scifact"),
        on_unresolved=ingest_on_unresolved("scifact"),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/ingest_scifact.py"


rule ingest_wikicontradict:
    input:
        unpack(lambda wc: wikicontradict_inputs()),
    output:
        instances="results/ingest/wikicontradict/instances.parquet",
    log:
        "logs/ingest/wikicontradict.log",
    benchmark:
        "logs/ingest/wikicontradict.benchmark.tsv"
    params:
        standalone_fields=lambda wc: config["data"]["wikicontradict"].get(
            "standalone_fields", ["paragraph_A_clean", "paragraph_B_clean"]
        ),
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
        "logs/ingest/{dataset}.log",
    benchmark:
        "logs/ingest/{dataset}.benchmark.tsv"
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


FINAL_OUTPUTS["ingest"] = ingest_final_outputs
