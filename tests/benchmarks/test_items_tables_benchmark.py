"""benchmarks/items_tables.py: its synthetic inputs are the tables the item rules read (the rules
run on them; Study 1's item means are the estimates of the counts it was given; the evidence at
the short budget is the start of the long one's; every seed's answer of every cell is there), and
its report table says which target was met."""
import importlib.util
from pathlib import Path

import numpy as np

from evidence_ledger.accounting.stage import study1_items, study2_items
from evidence_ledger.tables import read_frame
from evidence_ledger.tables.accounting import ESTIMATES
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.items import ITEM_CELLS, ITEM_COMPONENTS, ITEM_TEXTS, ITEMS

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("items_tables_benchmark", REPO / "benchmarks" / "items_tables.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_study1_inputs_give_items_whose_means_are_the_estimates(tmp_path):
    kwargs = bench.write_study1(tmp_path / "inputs", claims=40, seed=3)
    study1_items(**kwargs, items_out=tmp_path / "items.parquet", texts_out=tmp_path / "texts.parquet")
    items = read_frame(tmp_path / "items.parquet", ITEMS)
    estimates = read_frame(tmp_path / "inputs" / "study1" / "accounting" / "estimates.parquet", ESTIMATES)
    exact = estimates[(estimates["replicate"] == -1) & (estimates["population"] == "all")
                      & (estimates["part"] == "") & (estimates["factor"] == "")].set_index("quantity")["value"]
    assert len(items) == 40 and set(items["runs"]) == {4}
    for name in ITEM_CELLS + ITEM_COMPONENTS:
        assert abs(items[name].mean() - exact[name]) < 1e-9, name
    texts = read_frame(tmp_path / "texts.parquet", ITEM_TEXTS)
    assert texts["kind"].value_counts().to_dict() == {"answer": 40 * 4 * 2, "evidence": 40 * 2, "claim": 40}
    words = texts.loc[texts["kind"] == "evidence", "text"].str.count(" ") + 1
    assert 300 <= words.median() <= 380


def test_study2_inputs_give_every_comparison_and_text(tmp_path):
    kwargs = bench.write_study2(tmp_path / "inputs", claims=10, seed=5)
    study2_items(**kwargs, items_out=tmp_path / "items.parquet", texts_out=tmp_path / "texts.parquet")
    items = read_frame(tmp_path / "items.parquet", ITEMS)
    assert items["comparison"].nunique() == 3 * 2 * 2 * 2 and len(items) == 24 * 10 and set(items["runs"]) == {5}
    scifact = items[items["dataset"] == "scifact"]
    assert scifact["answer_0"].isna().all() and items.loc[items["dataset"] == "fever", "answer_0"].notna().all()
    texts = read_frame(tmp_path / "texts.parquet", ITEM_TEXTS)
    answers = texts[texts["kind"] == "answer"]
    assert len(answers) == 3 * 10 * 2 * 2 * 2 * 2 * 5 and set(answers["replicate"]) == {1, 2, 3, 4, 5}
    evidence = read_frame(tmp_path / "inputs" / "study2" / "evidence" / "fever" / "evidence.parquet", EVIDENCE)
    shown = evidence.set_index(["claim_id", "source", "budget"])["visible_text"]
    for (claim, source, budget), text in shown.items():
        if budget == "short":
            assert shown[(claim, source, "long")].startswith(text)
    words = shown.str.count(" ") + 1
    assert 150 <= words.xs("short", level="budget").median() <= 190
    assert 650 <= words.xs("long", level="budget").median() <= 750
    assert np.all(evidence["tokens_by_tokenizer"].map(len) == 2)


def test_markdown_names_each_rule_and_whether_its_target_was_met():
    case = {"size": "7,890 claims x 4 checkpoints", "input_mb": 20.3, "wall_s": 2.8, "wall_s_all": [2.8, 3.1],
            "stage_s": 2.3, "cpu_s": 2.7, "peak_rss_mib": 500.0, "items_rows": 7890, "items_mb": 0.08,
            "text_rows": 86790, "texts_mb": 11.7, "met": True}
    result = {"machine": {"cpus": 2, "python": "3.11", "platform": "linux", "omp_num_threads": "1"},
              "load_average_before": 1.0, "load_average_after": 2.0, "cpu_pressure_before": 5.0,
              "cpu_pressure_after": 6.0,
              "cases": {"study1_items": case, "study2_items": dict(case, wall_s=31.0, wall_s_all=[31.0], met=False)},
              "account": {"items": 10444, "runs": 4, "runs_items_s": 0.07, "runs_item_texts_s": 0.14,
                          "write_item_tables_s": 0.28, "total_s": 0.5, "items_mb": 0.41, "text_rows": 177548,
                          "texts_mb": 1.17, "peak_rss_mib": 278.0, "peak_rss_after_reading_mib": 180.0}}
    table = bench.markdown(result)
    assert ("| `study1_items` | 7,890 claims x 4 checkpoints | 20.3 | 2.8 (2.8, 3.1) | 2.3 | 2.7 | 500.0 "
            "| 7,890 (0.08) | 86,790 (11.7) | <= 30 s (met) |") in table
    assert "| 31.0 (31.0) |" in table and "<= 30 s (missed)" in table
    assert "| 0.07 | 0.14 | 0.28 | 0.5 | 10,444 (0.41) | 177,548 (1.17) | 278.0 (180.0) |" in table
