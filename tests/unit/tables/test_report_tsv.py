"""report_tsv.write_report_tsv: one float format (%.10g) and one missing-value spelling (NaN)."""
import math

import pandas as pd

from evidence_ledger.tables.report_tsv import write_report_tsv


def test_floats_use_ten_significant_digits_and_missing_is_nan(tmp_path):
    path = tmp_path / "sub" / "table.tsv"
    write_report_tsv(pd.DataFrame({"name": ["a", "b"], "value": [1 / 3, math.nan], "n": [2, 3]}), path)
    assert path.read_bytes() == b"name\tvalue\tn\na\t0.3333333333\t2\nb\tNaN\t3\n"


def test_exact_binary_fractions_are_written_without_trailing_zeros(tmp_path):
    path = tmp_path / "t.tsv"
    write_report_tsv(pd.DataFrame({"gain": [9.625, -0.5, 0.0]}), path)
    assert path.read_text().splitlines() == ["gain", "9.625", "-0.5", "0"]
