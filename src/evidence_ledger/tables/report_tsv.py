"""The one writer of report tables (TSV): one float format, one missing-value spelling.

In:  a pandas DataFrame and a path. Out: a tab-separated file with a header row, no index,
``\\n`` line endings, floats written so that they read back as the same float (the shortest
text that does, Python's ``repr``; a whole number without ``.0``: ``9.625``, ``-0.5``, ``0``,
``17.336309523809522``) and missing values written as ``NaN``. ``ledger.json`` takes its
numbers from these cells, so it holds every number at full precision.
"""
from __future__ import annotations

import pandas as pd

from ..files.safe_files import atomic_file

MISSING = "NaN"


def round_trip_text(value: float) -> str:
    """The shortest text that reads back as ``value`` (``repr``), a whole number without ``.0``."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def write_report_tsv(frame: pd.DataFrame, path) -> None:
    """Write ``frame`` to ``path`` as a report TSV (see the module docstring), atomically."""
    with atomic_file(path) as tmp:
        frame.to_csv(tmp, sep="\t", index=False, float_format=round_trip_text, na_rep=MISSING, lineterminator="\n")
