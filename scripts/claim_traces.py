"""Rule claim_traces: per-claim traces of evidence-only credit changes for the report.

Reads:  input.traces (PATTERN_TRACES), and per dataset input.claims_<ds> (sample, CLAIMS),
        input.evidence_<ds> (EVIDENCE), input.units_<ds> (UNITS); params sources (source 0,
        source 1), per_pattern, datasets.
Writes: output.tsv (one row per selected trace; newlines in evidence text kept as ' | ').
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.report.stage import claim_traces

log_to_rule_log(snakemake.log[0])
datasets = list(snakemake.params.datasets)
claim_traces(
    traces=snakemake.input.traces,
    claims={d: snakemake.input[f"claims_{d}"] for d in datasets},
    evidence={d: snakemake.input[f"evidence_{d}"] for d in datasets},
    units={d: snakemake.input[f"units_{d}"] for d in datasets},
    datasets=datasets, sources=list(snakemake.params.sources), per_pattern=snakemake.params.per_pattern,
    out=snakemake.output.tsv,
)
