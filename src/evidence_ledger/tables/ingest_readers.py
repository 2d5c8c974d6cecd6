"""Readers of the ingest tables CLAIMS and UNITS as pandas frames, for the stages that consume them.

In:  CLAIMS / UNITS Parquet paths (validated by ``read_table`` against ``tables.ingest``),
     optionally the unit ids / document ids / columns wanted.
Out: ``read_claims``: the union of CLAIMS tables, one row per claim id (first occurrence,
     file order); ``read_units``: the matching UNITS rows, reading only the
     row groups that may hold them.
"""
from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from . import read_filtered, read_frame, read_table
from .ingest import CLAIMS, UNITS


def read_units_table(path, unit_ids=None, doc_ids=None, columns=None) -> pa.Table:
    """UNITS rows (file order), optionally only those whose unit id / doc id is in the given
    collections. A filtered read touches only the row groups whose statistics may hold a
    wanted id (``tables.read_filtered``), never the whole table."""
    if unit_ids is None and doc_ids is None:
        return read_table(path, UNITS, columns=columns)
    out_columns = list(columns) if columns is not None else UNITS.columns
    if unit_ids is not None:
        extra = ["doc_id"] if doc_ids is not None and "doc_id" not in out_columns else []
        table = read_filtered(path, UNITS, "unit_id", unit_ids, columns=out_columns + extra)
        if doc_ids is not None:
            wanted_docs = pa.array(sorted(set(doc_ids)), pa.string())
            table = table.filter(pc.is_in(table["doc_id"], value_set=wanted_docs)).select(out_columns)
        return table
    return read_filtered(path, UNITS, "doc_id", doc_ids, columns=out_columns)


def read_units(path, unit_ids=None, doc_ids=None, columns=None) -> pd.DataFrame:
    """:func:`read_units_table` as a pandas DataFrame."""
    return read_units_table(path, unit_ids, doc_ids, columns).to_pandas()


def read_claims(paths) -> pd.DataFrame:
    """The union of CLAIMS tables, first occurrence of each claim id kept (in file order).

    The same claim id with a different claim text in two tables raises ValueError.
    """
    frames = [read_frame(p, CLAIMS) for p in paths]
    claims = pd.concat(frames, ignore_index=True) if frames else CLAIMS.empty().to_pandas()
    first = claims.drop_duplicates("claim_id", keep="first")
    merged = claims.merge(first[["claim_id", "claim"]], on="claim_id", suffixes=("", "_first"))
    clash = merged[merged["claim"] != merged["claim_first"]]
    if len(clash):
        cid = clash["claim_id"].iloc[0]
        raise ValueError(f"claim {cid!r} has different texts in {', '.join(map(str, paths))}")
    return first.reset_index(drop=True)
