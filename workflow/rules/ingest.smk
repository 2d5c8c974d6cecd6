# Rules of the 'ingest' stage: each benchmark's release files -> canonical tables under
# results/ingest/ (datasets.stage). Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params.

include: "ingest_functions.smk"


# One ingest rule per registered benchmark (evidence_ledger.benchmark_registry): ingest_fever,
# ingest_feverous, ingest_scifact and those of config benchmark_plugins; the reader and the
# resources come from the benchmark's registry entry.
for _bench in benchmarks():

    rule:
        name:
            f"ingest_{_bench.name}"
        input:
            unpack(lambda wc, name=_bench.name: ingest_inputs(name)),
        output:
            claim_tables=ingest_claims_outputs(_bench.name),
            units=INGEST("units", dataset=_bench.name),
            documents=INGEST("documents", dataset=_bench.name),
        log:
            log_file("ingest", f"ingest_{_bench.name}"),
        benchmark:
            timing_file("ingest", f"ingest_{_bench.name}")
        params:
            splits=ingest_splits(_bench.name),
            benchmark=_bench.name,
            on_unresolved=ingest_on_unresolved(_bench.name),
            data_root=data_path("."),
        threads: 1
        priority: 85
        resources:
            mem_mb=rule_resources.ingest_resource(_bench.ingest_resources, "mem_mb"),
            runtime=rule_resources.ingest_resource(_bench.ingest_resources, "runtime"),
            disk_mb=rule_resources.ingest_resource(_bench.ingest_resources, "disk_mb"),
        conda:
            "../../envs/cpu.yaml"
        script:
            # one script for every benchmark: Snakemake evaluates this expression again when the
            # job runs, after the loop has moved on, so it must not depend on the loop variable
            "../../scripts/call_stage.py"


rule ingest_wikicontradict:
    input:
        unpack(lambda wc: wikicontradict_inputs()),
    output:
        instances=INGEST("instances"),
    log:
        log_file("ingest", "ingest_wikicontradict"),
    benchmark:
        timing_file("ingest", "ingest_wikicontradict")
    params:
        standalone_fields=lambda wc: wikicontradict_standalone_fields(),
        consistent_fields=lambda wc: config["data"]["wikicontradict"].get("consistent_fields"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule ingest_conflict_qa:
    input:
        jsonl=lambda wc: data_path(config["data"][wc.dataset]["records"]),
    output:
        records=INGEST("records"),
    log:
        log_file("ingest", "ingest_conflict_qa", "{dataset}"),
    benchmark:
        timing_file("ingest", "ingest_conflict_qa", "{dataset}")
    params:
        dataset=lambda wc: wc.dataset,
    wildcard_constraints:
        dataset=conflict_qa_wildcard_regex(),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
