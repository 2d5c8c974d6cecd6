"""The generation rule functions, called directly on small Parquet files (no Snakemake).

plan_requests gets the config's request settings as named values and must plan exactly the
table the library plans from the ``generation`` section; gather_responses and
parse_responses then run on a hand-made shard of answers.
"""
import pyarrow as pa

from evidence_ledger.generation import requests as request_table
from evidence_ledger.generation import stage
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.generation import PARSED, REQUESTS, RESPONSES
from evidence_ledger.tables.ingest import CLAIMS

GEN = {
    "seeds": [1103, 2207],
    "sampling": {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.0},
    "max_new_tokens": 16,
    "formats": ["codes", "labels"],
    "sources": ["bm25"],
    "budgets": ["short"],
    "code_mappings": {"primary": {"A": "support", "B": "refute", "C": "nei"},
                      "alternatives": {"rotated": {"A": "refute", "B": "nei", "C": "support"}}},
    "controls": {"sources": ["none"], "formats": ["labels"], "budgets": ["short"], "code_mapping_budgets": ["short"]},
}


def _claim(claim_id, text, label):
    return {"dataset": "fever", "claim_id": claim_id, "claim": text, "label": label, "evidence_groups": [],
            "gold_abstracts": [], "cited_doc_ids": [], "source_file": "dev.jsonl", "source_line": int(claim_id),
            "unresolved_ids": []}


def _evidence(claim_id, source, text):
    return {"dataset": "fever", "claim_id": claim_id, "doc_id": "", "source": source, "budget": "short",
            "visible_text": text, "fits_budget": True, "visible_unit_ids": [], "tokens_by_tokenizer": [],
            "scored_unit_ids": [], "unresolved": 0, "submitted_unit_ids": None}


def _plan(tmp_path):
    claims = [_claim("1", "Ada was born in Varenholm.", "SUPPORTS"), _claim("2", "Ada never left.", "REFUTES")]
    evidence = [_evidence(c, s, f"{s} evidence for {c}" if s != "none" else "") for c in ("1", "2")
                for s in ("bm25", "none")]
    write_table(CLAIMS.from_rows(claims), tmp_path / "sample.parquet", CLAIMS)
    write_table(EVIDENCE.from_rows(evidence), tmp_path / "evidence.parquet", EVIDENCE)
    stage.plan_requests(
        claims=str(tmp_path / "sample.parquet"), evidence=str(tmp_path / "evidence.parquet"),
        requests=str(tmp_path / "requests.parquet"), model="qwen3", dataset="fever", seeds=GEN["seeds"],
        temperature=0.7, top_p=0.8, top_k=20, repetition_penalty=1.0, max_new_tokens=16,
        formats=GEN["formats"], sources=GEN["sources"], budgets=GEN["budgets"], code_mappings=GEN["code_mappings"],
        control_sources=["none"], control_budgets=["short"], control_formats=["labels"],
        control_code_mapping_budgets=["short"], control_design="crossed", shards=2,
    )
    return claims, evidence


def test_plan_requests_from_named_settings_equals_the_library_plan(tmp_path):
    claims, evidence = _plan(tmp_path)
    expected, _ = request_table.plan_requests("qwen3", "fever", claims, evidence, GEN, n_shards=2)
    assert read_table(tmp_path / "requests.parquet", REQUESTS).equals(expected)


def _answer(row, text):
    return {"model": row["model"], "dataset": row["dataset"], "request_id": row["request_id"], "cache_key": "k",
            "raw_response": text, "n_prompt_tokens": 10, "n_output_tokens": 1, "finish_reason": "stop",
            "backend": "test", "library_versions": "", "device": "cpu", "model_id": "m", "model_revision": "",
            "weights_hash": "", "dtype": "float32", "chat_template_hash": "", "prefix_caching": False}


def test_gather_then_parse_writes_parsed_rows_and_the_failure_table(tmp_path):
    _plan(tmp_path)
    requests = read_table(tmp_path / "requests.parquet", REQUESTS).to_pylist()
    unique = {r["request_id"]: r for r in requests}
    shards = []
    for shard in (0, 1):
        rows = [_answer(r, "A" if r["format"] == "codes" else "no idea") for r in unique.values()
                if r["shard"] == shard]
        path = tmp_path / f"responses_{shard}.parquet"
        write_table(pa.Table.from_pylist(rows, schema=RESPONSES.schema), path, RESPONSES)
        shards.append(str(path))
    stage.gather_responses(requests=str(tmp_path / "requests.parquet"), shards=shards,
                           responses=str(tmp_path / "responses.parquet"))
    gathered = read_table(tmp_path / "responses.parquet", RESPONSES).column("request_id").to_pylist()
    assert gathered == sorted(unique)

    stage.parse_responses(requests=str(tmp_path / "requests.parquet"), responses=str(tmp_path / "responses.parquet"),
                          parsed=str(tmp_path / "parsed.parquet"), failures=str(tmp_path / "failures.tsv"),
                          code_mappings=GEN["code_mappings"])
    assert read_table(tmp_path / "parsed.parquet", PARSED).num_rows == len(requests)
    lines = (tmp_path / "failures.tsv").read_text().splitlines()
    assert lines[0].split("\t") == ["model", "dataset", "format", "n", "strict_invalid", "strict_invalid_rate",
                                    "lenient_invalid", "lenient_invalid_rate"]
    by_format = {line.split("\t")[2]: line.split("\t") for line in lines[1:]}
    # every label-format answer ("no idea") is INVALID under both parsers; whole rates without '.0' (the report-TSV format)
    assert by_format["labels"][5] == "1" and by_format["labels"][7] == "1"
    assert by_format["codes"][5] == "0"


def test_plan_report_rows_add_stage_and_total_rows_in_hours():
    """The report table of the planner: its rows in hours, then primary / model-load / control
    stages and a total that sums them (what `python -m evidence_ledger plan` prints)."""
    from evidence_ledger.generation import plan_format

    rows = [{"model": "m", "dataset": "d", "condition": "primary", "basis": "evidence", "exact": True,
             "requests": 10, "prompt_tokens": 100, "reused_tokens": 60, "computed_tokens": 40, "output_tokens": 20,
             "gpu_seconds": 3600.0, "floor_seconds": 360.0},
            {"model": "m", "dataset": "d", "condition": "control:none", "basis": "evidence", "exact": True,
             "requests": 2, "prompt_tokens": 10, "reused_tokens": 0, "computed_tokens": 10, "output_tokens": 4,
             "gpu_seconds": 720.0, "floor_seconds": 36.0},
            {"model": "m", "dataset": "d", "condition": "model_load", "basis": "evidence", "exact": True,
             "requests": 0, "prompt_tokens": 0, "gpu_seconds": 120.0}]
    out = {(r["model"], r["condition"]): r for r in plan_format.plan_report_rows(rows)}
    assert out[("m", "primary")]["gpu_hours"] == 1.0
    assert out[("all", "primary")]["requests"] == 10 and out[("all", "controls")]["requests"] == 2
    assert out[("all", "model_loads")]["gpu_hours"] == 120 / 3600
    total = out[("all", "total")]
    assert total["requests"] == 12 and total["reused_tokens"] == 60
    assert total["gpu_hours"] == (3600 + 720 + 120) / 3600 and total["floor_hours"] == (360 + 36) / 3600
    assert list(out[("all", "total")]) == plan_format.PLAN_COLUMNS
