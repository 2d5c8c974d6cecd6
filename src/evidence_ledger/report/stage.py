"""Rule functions of the report stage (one per rule of ``workflow/rules/report.smk``).

  provenance    the resolved config + the repository -> provenance TSV (section, key, value)
  claim_traces  PATTERN_TRACES + per dataset the Study 2 sample (CLAIMS), EVIDENCE and UNITS
                -> claim_traces TSV (one row per selected trace)

Each takes paths and plain values (keyword-only).
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from ..report_tsv import write_report_tsv
from ..tables import read_frame
from ..tables.accounting import PATTERN_TRACES
from ..tables.evidence import EVIDENCE
from ..tables.ingest import CLAIMS, UNITS
from .provenance import provenance_rows, write_provenance_tsv
from .traces import TRACE_COLUMNS, build_trace_rows, select_traces

log = logging.getLogger(__name__)


def provenance(*, config: Mapping, repo, out) -> None:
    """Config hash, git commit, package versions, model revisions and backend settings of a run.
    ``repo``: the workflow directory (its git state is recorded)."""
    rows = provenance_rows(config, Path(repo))
    write_provenance_tsv(rows, out)
    log.info("wrote %d provenance rows to %s", len(rows), out)


def claim_traces(*, traces, claims: Mapping, evidence: Mapping, units: Mapping, datasets: Sequence[str],
                 sources: Sequence[str], per_pattern: int, out) -> None:
    """Per-claim traces of evidence-only credit changes: ``per_pattern`` traces per dataset x
    system x pattern, with the evidence text of both sources (newlines kept as `` | ``).

    ``claims`` / ``evidence`` / ``units``: dataset -> path of its sample (CLAIMS), EVIDENCE and
    UNITS tables, for every dataset of ``datasets``; ``sources``: (source 0, source 1)."""
    trace_rows = read_frame(traces, PATTERN_TRACES)
    selected = select_traces(trace_rows, int(per_pattern))
    parts = []
    for dataset in datasets:
        chosen = selected[selected["dataset"] == dataset]
        if chosen.empty:
            continue
        parts.append(build_trace_rows(
            chosen,
            read_frame(claims[dataset], CLAIMS),
            read_frame(evidence[dataset], EVIDENCE),
            read_frame(units[dataset], UNITS),
            tuple(sources),
        ))
        log.info("%s: %d traces selected of %d", dataset, len(chosen), int((trace_rows["dataset"] == dataset).sum()))
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=TRACE_COLUMNS)
    for column in ("evidence_0_text", "evidence_1_text"):
        table[column] = table[column].str.replace("\n", " | ", regex=False)
    write_report_tsv(table, out)
    log.info("wrote %d trace rows", len(table))
