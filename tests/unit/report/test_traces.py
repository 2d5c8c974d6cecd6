"""Per-claim trace selection and joining for the report."""
import pandas as pd

from evidence_ledger.report.traces import build_trace_rows, claim_sort_key, pattern_scores, select_traces


def trace(claim_id, pattern="1010", replicate=0, system="qwen3", dataset="feverous"):
    return {"dataset": dataset, "system": system, "format": "labels", "budget": "short", "replicate": replicate,
            "claim_id": claim_id, "doc_id": "", "pattern": pattern, "gold_label": "SUPPORTS",
            "predicted_0": "SUPPORTS", "predicted_1": "SUPPORTS", "eligible_0": pattern == "1010",
            "eligible_1": pattern == "0101"}


def test_integer_ids_sort_numerically_not_as_strings():
    assert sorted(["236", "1000", "472", "x9"], key=claim_sort_key) == ["236", "472", "1000", "x9"]


def test_pattern_scores_names_the_four_cells():
    assert pattern_scores("0101") == "S00=0 S01=1 S10=0 S11=1"


def test_selection_keeps_lowest_ids_per_pattern_and_system():
    traces = pd.DataFrame([trace("472"), trace("1000"), trace("236"), trace("236", replicate=3),
                           trace("5", pattern="0101"), trace("7", system="llama31")])
    chosen = select_traces(traces, per_pattern=2)
    assert list(zip(chosen["system"], chosen["pattern"], chosen["claim_id"], chosen["replicate"])) == [
        ("llama31", "1010", "7", 0), ("qwen3", "0101", "5", 0), ("qwen3", "1010", "236", 0), ("qwen3", "1010", "472", 0)]


def test_trace_rows_show_both_scored_evidence_lists():
    claims = pd.DataFrame({"claim_id": ["236"], "claim": ["Tarrow is a band."]})
    evidence = pd.DataFrame({"claim_id": ["236", "236"], "doc_id": ["", ""], "source": ["bm25", "bge"],
                             "budget": ["short", "short"], "scored_unit_ids": [["T_sentence_0", "T_sentence_1"], ["T_sentence_1"]]})
    units = pd.DataFrame({"unit_id": ["T_sentence_0", "T_sentence_1"], "text": ["Tarrow is a band.", "It formed in 1990."]})
    rows = build_trace_rows(pd.DataFrame([trace("236")]), claims, evidence, units, ("bm25", "bge"))
    row = rows.iloc[0]
    assert row["claim"] == "Tarrow is a band."
    assert row["evidence_0_ids"] == "T_sentence_0 T_sentence_1"
    assert row["evidence_1_text"] == "[T_sentence_1] It formed in 1990."
    assert row["scores"] == "S00=1 S01=0 S10=1 S11=0"
