"""claim_traces reads only the rows it shows: the chosen claims' CLAIMS and EVIDENCE rows and
the UNITS their scored evidence names (the UNITS table is the whole corpus), and writes the same
TSV as from full reads of the three tables."""
import pandas as pd

from evidence_ledger.report.stage import claim_traces
from evidence_ledger.report.traces import build_trace_rows, select_traces, trace_unit_ids
from evidence_ledger.tables.report_tsv import write_report_tsv
from evidence_ledger.tables import read_frame, write_table
from evidence_ledger.tables.accounting import PATTERN_TRACES
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.ingest import CLAIMS, UNITS

SOURCES = ("bm25", "bge")


def trace_row(claim_id, pattern, system="qwen3"):
    return {"dataset": "fever", "system": system, "format": "labels", "budget": "short", "replicate": 0,
            "claim_id": claim_id, "doc_id": "", "pattern": pattern, "gold_label": "SUPPORTS",
            "predicted_0": "SUPPORTS", "predicted_1": "REFUTES", "eligible_0": True, "eligible_1": True}


def evidence_row(claim_id, source, budget, unit_ids):
    return {"dataset": "fever", "claim_id": claim_id, "doc_id": "", "source": source, "budget": budget,
            "visible_unit_ids": unit_ids, "visible_text": "", "tokens_by_tokenizer": [("t", 1)],
            "scored_unit_ids": unit_ids, "unresolved": 0, "fits_budget": True, "submitted_unit_ids": unit_ids}


def write_inputs(tmp_path, n_claims=40, units_per_claim=6):
    claims = [{"dataset": "fever", "claim_id": str(c), "claim": f"claim {c}", "label": "SUPPORTS",
               "evidence_groups": [], "gold_abstracts": [], "cited_doc_ids": [], "source_file": "dev.jsonl",
               "source_line": c, "unresolved_ids": []} for c in range(n_claims)]
    units = [{"dataset": "fever", "unit_id": f"P{c}_sentence_{i}", "doc_id": f"P{c}", "kind": "sentence",
              "position": i, "text": f"text {c}.{i}\nline two", "context": f"P{c}"}
             for c in range(n_claims) for i in range(units_per_claim)]
    evidence = [evidence_row(str(c), s, budget, [f"P{c}_sentence_{i}" for i in range(k, k + 2)])
                for c in range(n_claims) for k, s in enumerate(SOURCES) for budget in ("short", "long")]
    traces = [trace_row(str(c), "1010" if c % 2 else "0101") for c in range(n_claims)]
    paths = {name: tmp_path / f"{name}.parquet" for name in ("claims", "units", "evidence", "traces")}
    write_table(CLAIMS.from_rows(claims), paths["claims"], CLAIMS)
    write_table(UNITS.from_rows(units), paths["units"], UNITS)
    write_table(EVIDENCE.from_rows(evidence), paths["evidence"], EVIDENCE)
    write_table(PATTERN_TRACES.from_rows(traces), paths["traces"], PATTERN_TRACES)
    return paths


def test_claim_traces_from_filtered_reads_equal_the_full_read(tmp_path):
    paths = write_inputs(tmp_path)
    claim_traces(traces=paths["traces"], claims=[paths["claims"]], evidence=[paths["evidence"]],
                 units=[paths["units"]], datasets=["fever"], sources=list(SOURCES), per_pattern=2,
                 out=tmp_path / "traces.tsv")
    chosen = select_traces(read_frame(paths["traces"], PATTERN_TRACES), 2)
    expected = build_trace_rows(chosen, read_frame(paths["claims"], CLAIMS), read_frame(paths["evidence"], EVIDENCE),
                                read_frame(paths["units"], UNITS), SOURCES)
    for column in ("evidence_0_text", "evidence_1_text"):
        expected[column] = expected[column].str.replace("\n", " | ", regex=False)
    write_report_tsv(expected, tmp_path / "expected.tsv")
    assert (tmp_path / "traces.tsv").read_bytes() == (tmp_path / "expected.tsv").read_bytes()
    assert len(expected) == 4 and "text 0.0 | line two" in (tmp_path / "traces.tsv").read_text()


def test_trace_unit_ids_are_the_scored_units_of_each_trace_under_both_sources():
    chosen = pd.DataFrame([trace_row("1", "1010")])
    evidence = pd.DataFrame([evidence_row("1", "bm25", "short", ["a", "b"]), evidence_row("1", "bge", "short", ["c"]),
                             evidence_row("1", "bm25", "long", ["d"]), evidence_row("2", "bm25", "short", ["e"]),
                             evidence_row("1", "other", "short", ["f"])])
    assert trace_unit_ids(chosen, evidence, SOURCES) == {"a", "b", "c"}
