"""The items that carry a component most, from one accounting's per-item tables (the ``items`` command).

In:  a directory holding ``items.parquet`` (ITEMS) and, where present, ``item_texts.parquet``
     (ITEM_TEXTS), as an accounting writes them (``tables.items``): an ``account --out``
     directory, ``results/accounting/study1``, ``results/account/<system>``.
Out: the comparisons of the table; one comparison's items (a DataFrame); how many items raise,
     lower and leave a component (the sign of their share, as the item explorer groups them);
     the items with the largest share in absolute value (filtered by pattern and gold); and the
     texts of chosen items that belong to the comparison.

Which texts belong to a comparison (here and in the explorer's script, ``templates/items.js``):
the rows of its dataset and item whose ``system``, ``format`` and ``budget`` are empty (the
same for every comparison) or the comparison's, and whose ``source`` is one of its two sources
(claims: every row of the item).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from ..tables import read_filtered, read_table
from ..tables.items import ITEM_TEXTS, ITEMS

ITEMS_FILE = "items.parquet"
ITEM_TEXTS_FILE = "item_texts.parquet"
#: a pattern asked for: one character per cell (T00, T01, T10, T11), ``.`` standing for any
PATTERN_QUERY = re.compile(r"[01~.]{4}")
#: the groups of items by the sign of their share, in the order they are shown
SIGN_GROUPS = ("raises", "lowers", "leaves")


def comparison_keys(items_path) -> list[str]:
    """The comparisons of an ITEMS table, in order of first appearance."""
    column = read_table(items_path, ITEMS, columns=["comparison"])["comparison"]
    return list(dict.fromkeys(pc.unique(column).to_pylist()))


def comparison_items(items_path, key: str) -> pd.DataFrame:
    """The rows of comparison ``key`` of an ITEMS table (reading only the row groups that may
    hold them)."""
    return read_filtered(items_path, ITEMS, "comparison", [key]).to_pandas()


def sign_counts(shares: Iterable[float]) -> dict[str, int]:
    """How many shares are above, below and at zero (``raises``, ``lowers``, ``leaves``) and how
    many are NaN (``undefined``)."""
    shares = np.asarray(list(shares), dtype=np.float64)
    return {"raises": int((shares > 0).sum()), "lowers": int((shares < 0).sum()),
            "leaves": int((shares == 0).sum()), "undefined": int(np.isnan(shares).sum())}


def pattern_mask(patterns: pd.Series, query: str) -> np.ndarray:
    """Which ``patterns`` match ``query`` (:data:`PATTERN_QUERY`: ``.`` matches any character)."""
    return patterns.str.fullmatch(re.escape(query).replace(r"\.", ".")).to_numpy(dtype=bool)


def top_items(items: pd.DataFrame, component: str, top: int, pattern: str | None = None,
              gold: str | None = None) -> pd.DataFrame:
    """The ``top`` items of one comparison with the largest share of ``component`` in absolute
    value (ties by item id), among those whose pattern matches ``pattern`` and whose gold is
    ``gold`` (each where given); items without a value (NaN) are left out."""
    keep = items[component].notna().to_numpy().copy()
    if pattern is not None:
        keep &= pattern_mask(items["pattern"], pattern)
    if gold is not None:
        keep &= (items["gold"] == gold).to_numpy()
    chosen = items[keep].assign(_size=lambda f: f[component].abs())
    return chosen.sort_values(["_size", "item_id"], ascending=[False, True], kind="stable").head(top).drop(
        columns="_size")


def text_applies(row: Mapping, comparison: Mapping) -> bool:
    """Whether an ITEM_TEXTS row of the comparison's dataset and item belongs to it (module doc)."""
    if row["kind"] == "claim":
        return True
    return (all(row[f] in ("", comparison[f]) for f in ("system", "format", "budget"))
            and row["source"] in (comparison["source0"], comparison["source1"]))


def item_texts(texts_path, comparison: Mapping, item_ids: Iterable[str]) -> dict[str, list[dict]]:
    """item id -> its ITEM_TEXTS rows that belong to ``comparison`` (a row of its ITEMS table),
    sorted by kind, source, budget and replicate; an item without texts is absent."""
    rows = read_filtered(texts_path, ITEM_TEXTS, "item_id", item_ids).to_pylist()
    found: dict[str, list[dict]] = {}
    for row in rows:
        if row["dataset"] == comparison["dataset"] and text_applies(row, comparison):
            found.setdefault(row["item_id"], []).append(row)
    for texts in found.values():
        texts.sort(key=lambda r: (r["kind"], r["source"], r["budget"], r["replicate"]))
    return found


def texts_file(directory: Path) -> Path | None:
    """``item_texts.parquet`` of ``directory``, or None where there is none."""
    path = Path(directory) / ITEM_TEXTS_FILE
    return path if path.is_file() else None
