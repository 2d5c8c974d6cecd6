# Input functions, constants and the target hook of the 'report' stage; its rules are in
# report.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

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
