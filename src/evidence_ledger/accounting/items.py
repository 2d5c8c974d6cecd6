"""The items behind a decomposition: each item's cells and its share of every component.

In:  one comparison's numerators ``num[k, r, a, b]`` and denominators ``den[k, r, a]`` (items x
     runs x answer source x evidence source, as a count panel holds them for one format and one
     budget), its accounting metric's multiplier, the item ids, and what else the item table
     shows: the gold, the families, per-item answer, eligibility and evidence scores.
Out: ITEMS rows (``tables.items``), one per item: its cells ``T_ab,i`` and components (``E0_i =
     T01_i - T00_i``, ...) averaged over runs, per-run cells, per-source scores, its pattern; and
     the item tables written as the explorer reads them (:func:`write_item_tables`; frame by
     frame: :class:`ItemTableWriter`).

Per run ``r`` the item's cell is ``T_ab,i(r) = 100 * m * num[i, r, a, b] * K / D_a(r)`` with ``K``
items and ``D_a(r) = sum_i den[i, r, a]``, so that its mean over items is the run's score
``T_ab(r) = 100 * m * sum_i num / D_a(r)`` exactly (a strict score: ``100 * num_i``); averaged
over runs, the item means are the replicate-averaged estimates, and every component's item mean
is the component ("What Changes When Fact-Verification Scores Improve?", Study 1: T_ab, E_a and
A_b are linear in the cells).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from ..tables import TableWriter
from ..tables.items import ITEM_CELLS, ITEM_COMPONENTS, ITEM_TEXTS, ITEMS, comparison_key

#: rows per Parquet row group of the item tables: the explorer reads them a row group at a time
ITEM_ROW_GROUP = 32768


@dataclass(frozen=True)
class Comparison:
    """One decomposition: the runs of ``source0`` and ``source1`` in one cell set."""

    study: str
    dataset: str
    system: str
    format: str
    parser: str
    budget: str
    source0: str
    source1: str

    @property
    def key(self) -> str:
        """``study/dataset/system/format/parser/budget`` (``tables.items.comparison_key``): the
        explorer's, the summary page's and the command's name of it."""
        return comparison_key(vars(self))


def item_cells(num: np.ndarray, den: np.ndarray, multiplier: int) -> np.ndarray:
    """(K, R, 2, 2) per-item, per-run cells in points (see the module doc); a run whose
    denominator is 0 for a source gives NaN cells, as its score is undefined."""
    K = num.shape[0]
    totals = den.sum(axis=0).astype(np.float64)  # (R, 2): D_a(r)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(totals > 0, 100.0 * multiplier * K / totals, np.nan)
    return num.astype(np.float64) * scale[None, :, :, None]


def item_components(cells: np.ndarray) -> dict[str, np.ndarray]:
    """The four cells and six components per item from (K, 2, 2) run-averaged cells."""
    t00, t01, t10, t11 = cells[:, 0, 0], cells[:, 0, 1], cells[:, 1, 0], cells[:, 1, 1]
    e0, e1 = t01 - t00, t11 - t10
    return {"T00": t00, "T01": t01, "T10": t10, "T11": t11, "gain": t11 - t00, "E0": e0, "A1": t11 - t01,
            "A0": t10 - t00, "E1": e1, "interaction": e1 - e0}


def cell_patterns(num: np.ndarray) -> list[str]:
    """Per item one character per cell (T00, T01, T10, T11): ``1`` a numerator of at least 1 in
    every run (a strict point, a whole KILT point, a SciFact abstract), ``0`` none in any run,
    ``~`` otherwise (in some runs, or partly: a continuous score below 1)."""
    flat = num.reshape(num.shape[0], num.shape[1], 4)  # (K, R, [00, 01, 10, 11])
    full = (flat >= 1).all(axis=1)
    none = (flat == 0).all(axis=1)
    chars = np.where(full, "1", np.where(none, "0", "~"))
    return ["".join(row) for row in chars]


def run_mean(values: np.ndarray | None, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Per source the mean over runs of a (K, R, 2) array, NaN where there is none."""
    if values is None:
        nan = np.full(K, np.nan)
        return nan, nan
    mean = values.astype(np.float64).mean(axis=1)
    return mean[:, 0], mean[:, 1]


def item_rows(comparison: Comparison, units: Sequence[str], num: np.ndarray, den: np.ndarray, multiplier: int, *,
              gold: Sequence[str] | None = None, families: Sequence[str] | None = None,
              answer: np.ndarray | None = None, eligible: np.ndarray | None = None,
              evidence: np.ndarray | None = None) -> pd.DataFrame:
    """ITEMS rows of one comparison (see the module doc). ``num`` (K, R, 2, 2), ``den`` (K, R, 2);
    ``answer`` / ``eligible`` / ``evidence`` (K, R, 2) where the accounting has them."""
    K, R = num.shape[:2]
    cells = item_cells(num, den, multiplier)
    columns = item_components(cells.mean(axis=1))
    answer_0, answer_1 = run_mean(answer, K)
    eligible_0, eligible_1 = run_mean(eligible, K)
    evidence_0, evidence_1 = run_mean(evidence, K)
    frame = pd.DataFrame({
        "study": comparison.study, "dataset": comparison.dataset, "system": comparison.system,
        "format": comparison.format, "parser": comparison.parser, "budget": comparison.budget,
        "source0": comparison.source0, "source1": comparison.source1, "comparison": comparison.key,
        "item_id": [str(u) for u in units],
        "family_id": [str(f) for f in families] if families is not None else "",
        "gold": [str(g) for g in gold] if gold is not None else "",
        "runs": np.int64(R), "answer_0": answer_0, "answer_1": answer_1, "eligible_0": eligible_0,
        "eligible_1": eligible_1, "evidence_0": evidence_0, "evidence_1": evidence_1,
        **{name: columns[name] for name in ITEM_CELLS + ITEM_COMPONENTS},
        "pattern": cell_patterns(num),
        **{f"run_{cell}": list(cells[:, :, a, b]) for cell, (a, b) in zip(ITEM_CELLS, ((0, 0), (0, 1), (1, 0), (1, 1)))},
    })
    return frame[ITEMS.columns]


class ItemTableWriter:
    """One item table (ITEMS or ITEM_TEXTS) written frame by frame, as a context manager: the
    rows of every :meth:`append` in order, in row groups of exactly :data:`ITEM_ROW_GROUP` rows
    (the last one shorter) whatever the frames' sizes, so a table written in parts is the table
    written whole. The rows of a row group not yet complete are held as Python values, not as
    views of their frame, so memory holds one part and one row group."""

    def __init__(self, path, schema):
        self.schema = schema
        self.writer = TableWriter(path, schema, row_group_size=ITEM_ROW_GROUP)
        self.pending: dict[str, list] = {c: [] for c in schema.columns}
        self.held = 0

    def __enter__(self) -> "ItemTableWriter":
        self.writer.__enter__()
        return self

    def append(self, frame: pd.DataFrame) -> None:
        """Queue ``frame``'s rows, writing every row group they complete."""
        start = 0
        while start < len(frame):
            chunk = frame.iloc[start:start + ITEM_ROW_GROUP - self.held]
            for column, values in self.pending.items():
                values.extend(chunk[column].tolist())
            self.held, start = self.held + len(chunk), start + len(chunk)
            if self.held == ITEM_ROW_GROUP:
                self.flush()

    def flush(self) -> None:
        """Write the queued rows as one row group."""
        if self.held:
            self.writer.write_columns(self.pending)
        self.pending, self.held = {c: [] for c in self.schema.columns}, 0

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.flush()
        self.writer.__exit__(exc_type, exc, tb)


def write_item_tables(items: pd.DataFrame, texts: pd.DataFrame, items_out, texts_out) -> None:
    """ITEMS (rows grouped by comparison, as given) and ITEM_TEXTS (rows grouped by dataset and
    item, each item's texts in the order given) in row groups of :data:`ITEM_ROW_GROUP`, so the
    explorer (``report.items_page``) and the ``items`` command read them batch by batch and
    finish each comparison's and each item's payload as soon as its last row is read."""
    texts = texts.sort_values(["dataset", "item_id"], kind="stable")
    for frame, schema, path in ((items, ITEMS, items_out), (texts, ITEM_TEXTS, texts_out)):
        with ItemTableWriter(path, schema) as writer:
            writer.append(frame)
