# Rules of the 'report' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.
# Rule functions: evidence_ledger.report.stage.


def trace_datasets():
    """Study 2 datasets whose evidence-only credit changes are traced in the report."""
    return list(study2_panel_names()[0])


def claim_trace_inputs(wildcards):
    inputs = {"traces": "results/accounting/study2/pattern_traces.parquet"}
    for dataset in trace_datasets():
        inputs[f"claims_{dataset}"] = f"results/sampling/{dataset}/sample.parquet"
        inputs[f"evidence_{dataset}"] = f"results/evidence/{dataset}/evidence.parquet"
        inputs[f"units_{dataset}"] = f"results/ingest/{dataset}/units.parquet"
    return inputs


def report_final_outputs():
    targets = ["results/report/provenance.tsv"]
    if enabled("study2"):
        targets.append("results/report/claim_traces.tsv")
    return targets


FINAL_OUTPUTS["report"] = report_final_outputs


report: "../report/workflow.rst"


rule provenance:
    output:
        tsv=report(
            "results/report/provenance.tsv",
            caption="../report/provenance.rst",
            category="Provenance",
        ),
    log:
        "logs/report/provenance.log",
    benchmark:
        "logs/report/provenance.benchmark.tsv"
    params:
        config=config,
        repo=workflow.basedir,
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/provenance.py"


rule claim_traces:
    input:
        unpack(claim_trace_inputs),
    output:
        tsv=report(
            "results/report/claim_traces.tsv",
            caption="../report/claim_traces.rst",
            category="Study 2",
            subcategory="Per-claim traces",
        ),
    log:
        "logs/report/claim_traces.log",
    benchmark:
        "logs/report/claim_traces.benchmark.tsv"
    params:
        sources=lambda wc: config["accounting"]["study2"]["sources"],
        per_pattern=lambda wc: config["report"]["traces_per_pattern"],
        datasets=lambda wc: trace_datasets(),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/claim_traces.py"
