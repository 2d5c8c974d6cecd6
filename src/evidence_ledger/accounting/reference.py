"""Paper reference values: read from a TSV data file and attached to result rows.

In:  the reference-values file (``accounting.reference_values``, e.g.
     ``resources/reference/paper_values.tsv``; columns REFERENCE_KEYS, value, lower, upper,
     source, optionally text and the OPTIONAL_KEYS) and a result frame (ESTIMATES, INTERVALS, INVALID_RATES rows).
Out: the frame with ``reference`` / ``reference_lower`` / ``reference_upper`` columns (NaN
     where no reference row matches), and the published decision label.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError


REFERENCE_KEYS = ("study", "population", "dataset", "system", "quantity", "factor", "format", "budget", "part")
#: key columns a reference file may have (empty where they do not apply): ``design``, the
#: greedy-control design a count was made under (``generation.controls.design``)
OPTIONAL_KEYS = ("design",)


def read_reference(path) -> pd.DataFrame:
    """The reference-values TSV (columns: REFERENCE_KEYS, value, lower, upper, source);
    ``*`` in a key column matches anything; empty lower/upper = not published."""
    ref = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, comment="#")
    missing = [c for c in REFERENCE_KEYS + ("value", "lower", "upper") if c not in ref.columns]
    if missing:
        raise InputError(path, 1, missing[0], "reference file lacks this column")
    for col in ("value", "lower", "upper"):
        ref[col] = pd.to_numeric(ref[col].replace("", np.nan))
    for col in OPTIONAL_KEYS:
        if col not in ref.columns:
            ref[col] = ""
    return ref


def attach_reference(frame: pd.DataFrame, ref: pd.DataFrame | None, value_cols=("reference", "reference_lower",
                                                                                 "reference_upper")) -> pd.DataFrame:
    """Add reference value/lower/upper columns to rows that match a reference row on every key
    present in ``frame`` (missing key columns count as '', so a reference row with a ``design``
    matches only frames that carry that design). Only replicate-averaged rows
    (``replicate`` -1 or absent) are matched."""
    out = frame.copy()
    for c in value_cols:
        out[c] = np.nan
    if ref is None or out.empty:
        return out
    rep_ok = out["replicate"] == -1 if "replicate" in out.columns else pd.Series(True, index=out.index)
    for _, row in ref.iterrows():
        m = rep_ok.copy()
        for key in REFERENCE_KEYS + tuple(k for k in OPTIONAL_KEYS if k in row.index):
            want = row[key]
            if want == "*":
                continue
            have = out[key] if key in out.columns else pd.Series("", index=out.index)
            m &= have.astype(str) == want
        if m.any():
            out.loc[m, value_cols[0]] = row["value"]
            if len(value_cols) > 1:
                out.loc[m, value_cols[1]] = row["lower"]
                out.loc[m, value_cols[2]] = row["upper"]
    return out


def reference_decision_label(ref: pd.DataFrame | None) -> str:
    """The published decision label (``text`` of the first ``decision_label`` row), else ''."""
    if ref is None:
        return ""
    hit = ref[ref["quantity"] == "decision_label"]
    if len(hit) and "text" in hit.columns:
        return str(hit["text"].iat[0])
    return ""
