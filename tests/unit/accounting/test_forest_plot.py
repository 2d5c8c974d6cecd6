"""Figure 1's legend names both factors and explains the grey band as the stability bound."""
import pandas as pd

from evidence_ledger.accounting.decisions import forest_plot


def test_forest_legend_explains_the_stability_band(tmp_path):
    intervals = pd.DataFrame({"dataset": ["fever", "scifact"], "system": ["qwen3", "qwen3"],
                              "factor": ["format", "context"], "estimate": [1.0, -3.0], "lower": [-0.5, -5.0],
                              "upper": [2.5, -1.0]})
    forest_plot(intervals, 2.0, tmp_path / "f.png", tmp_path / "f.svg")
    svg = (tmp_path / "f.svg").read_text()
    for label in ("format effect", "context effect", "stability bound: within ±2 points"):
        assert f"<!-- {label} -->" in svg, label
