"""benchmarks/items_page.py: its synthetic tables are ITEMS / ITEM_TEXTS as the contract has them (the
short budget's evidence the start of the long one's, the components the differences of the
cells), and its report table says which target was met."""
import importlib.util
from pathlib import Path

import numpy as np

from evidence_ledger.tables import read_frame
from evidence_ledger.tables.items import ITEM_TEXTS, ITEMS

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("items_page_benchmark", REPO / "benchmarks" / "items_page.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_synthetic_tables_hold_what_the_contract_says(tmp_path):
    world = bench.write_world(tmp_path, study1_claims=30, study2_claims=12, seed=3)
    assert (world["study1"]["comparisons"], world["study2"]["comparisons"]) == (1, 24)
    items = read_frame(tmp_path / "study2" / "items.parquet", ITEMS)
    assert len(items) == 24 * 12 and items["comparison"].nunique() == 24
    assert np.allclose(items["E0"], items["T01"] - items["T00"]) and np.allclose(items["A1"], items["T11"] - items["T01"])
    assert np.allclose(items["T00"], [np.mean(v) for v in items["run_T00"]]) and set(items["runs"]) == {5}
    texts = read_frame(tmp_path / "study2" / "item_texts.parquet", ITEM_TEXTS)
    evidence = texts[texts["kind"] == "evidence"].set_index(["dataset", "item_id", "source", "budget"])["text"]
    for (dataset, item, source, budget), text in evidence.items():
        if budget == "short":
            assert evidence[(dataset, item, source, "long")].startswith(text)
    words = evidence.str.count(" ") + 1
    assert 150 <= words.xs("short", level="budget").median() <= 200 and 650 <= words.xs("long", level="budget").median()
    answers = texts[texts["kind"] == "answer"]
    assert len(answers) == 3 * 12 * 8 * 2 * 5 and set(answers["replicate"]) == {1, 2, 3, 4, 5}


def test_markdown_names_each_measure_and_whether_its_target_was_met():
    run = {"open_s": 0.9, "filter_s": 0.05, "switch_to_study2_s": 0.04, "open_item_s": 0.07}
    result = {"machine": {"cpus": 2, "python": "3.11", "platform": "linux", "chromium": "Chromium 1"},
              "load_average_before": 1.0, "load_average_after": 2.0, "cpu_pressure_before": 5.0,
              "cpu_pressure_after": 6.0,
              "world": {"study1": {"comparisons": 1, "items": 7890, "text_rows": 86790, "parquet_mb": 10.5},
                        "study2": {"comparisons": 24, "items": 48000, "text_rows": 510000, "parquet_mb": 16.5}},
              "page": {"size_mb": 26.3, "build_s": 20.0, "build_peak_rss_mib": 300.0},
              "browser": [run, dict(run, open_s=2.5)], "met": {"size_mb": True, "open_s": True, "filter_s": False}}
    table = bench.markdown(result)
    assert "| page size MB | 26.3 | < 30 (met) |" in table
    assert "| open s, fastest (all) | 0.900 (0.900, 2.500) | <= 2 (met) |" in table
    assert "| filter s, fastest (all) | 0.050 (0.050, 0.050) | <= 2 (missed) |" in table
    assert "| study2 | 24 | 48,000 | 510,000 | 16.5 |" in table
