"""Rule claim_traces: per-claim traces of evidence-only credit changes for the report.

Reads: input.traces (PATTERN_TRACES), and per dataset input.claims_<ds> (sample, CLAIMS),
input.evidence_<ds> (EVIDENCE), input.units_<ds> (UNITS); params.sources (source 0, source 1),
params.per_pattern, params.datasets.
Writes: output.tsv (one row per selected trace; newlines in evidence text kept as ' | ').
"""
import logging

import pandas as pd

from evidence_ledger.report.traces import TRACE_COLUMNS, build_trace_rows, select_traces
from evidence_ledger.tables import read_frame
from evidence_ledger.tables.accounting import PATTERN_TRACES
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.ingest import CLAIMS, UNITS

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
traces = read_frame(snakemake.input.traces, PATTERN_TRACES)
selected = select_traces(traces, int(snakemake.params.per_pattern))
parts = []
for dataset in snakemake.params.datasets:
    chosen = selected[selected["dataset"] == dataset]
    if chosen.empty:
        continue
    parts.append(build_trace_rows(
        chosen,
        read_frame(snakemake.input[f"claims_{dataset}"], CLAIMS),
        read_frame(snakemake.input[f"evidence_{dataset}"], EVIDENCE),
        read_frame(snakemake.input[f"units_{dataset}"], UNITS),
        tuple(snakemake.params.sources),
    ))
    logging.info("%s: %d traces selected of %d", dataset, len(chosen), int((traces["dataset"] == dataset).sum()))
table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=TRACE_COLUMNS)
for column in ("evidence_0_text", "evidence_1_text"):
    table[column] = table[column].str.replace("\n", " | ", regex=False)
table.to_csv(snakemake.output.tsv, sep="\t", index=False)
logging.info("wrote %d trace rows", len(table))
