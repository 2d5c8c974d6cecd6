"""The one writer of report tables (TSV): one float format, one missing-value spelling.

In:  a pandas DataFrame and a path. Out: a tab-separated file with a header row, no index,
``\\n`` line endings, floats written with ``%.10g`` (ten significant digits: exact for
every count-derived rate the pipeline reports at its sizes, and no trailing zeros) and
missing values written as ``NaN``.
"""
from __future__ import annotations

import pandas as pd

from ..files.safe_files import atomic_file

FLOAT_FORMAT = "%.10g"
MISSING = "NaN"


def write_report_tsv(frame: pd.DataFrame, path) -> None:
    """Write ``frame`` to ``path`` as a report TSV (see the module docstring), atomically."""
    with atomic_file(path) as tmp:
        frame.to_csv(tmp, sep="\t", index=False, float_format=FLOAT_FORMAT, na_rep=MISSING, lineterminator="\n")
