"""report_tsv.write_report_tsv: floats that read back as the same float, one missing-value spelling (NaN)."""
import math

import pandas as pd

from evidence_ledger.tables.report_tsv import write_report_tsv


def test_floats_read_back_as_the_same_float_and_missing_is_nan(tmp_path):
    path = tmp_path / "sub" / "table.tsv"
    values = [1 / 3, math.nan, 17.336309523809522, 1e-05, 2.5e20, -1 / 7]
    write_report_tsv(pd.DataFrame({"name": list("abcdef"), "value": values, "n": [2, 3, 4, 5, 6, 7]}), path)
    lines = path.read_text().splitlines()
    assert lines[:3] == ["name\tvalue\tn", "a\t0.3333333333333333\t2", "b\tNaN\t3"]
    assert lines[3] == "c\t17.336309523809522\t4"
    read = pd.read_csv(path, sep="\t")["value"].tolist()
    assert [v for v in read if not math.isnan(v)] == [v for v in values if not math.isnan(v)]


def test_exact_binary_fractions_are_written_without_trailing_zeros(tmp_path):
    path = tmp_path / "t.tsv"
    write_report_tsv(pd.DataFrame({"gain": [9.625, -0.5, 0.0]}), path)
    assert path.read_text().splitlines() == ["gain", "9.625", "-0.5", "0"]
