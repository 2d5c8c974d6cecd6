"""The items behind an accounted system's numbers: ITEMS and ITEM_TEXTS of its runs.

In:  :class:`~.runs.Runs` of one system (any format), the system and source names, its families.
Out: the ITEMS rows of its one comparison (``accounting.items.item_rows``: per item the cells,
     the shares of every component, the per-source answer, eligibility and evidence scores, the
     gold) and the ITEM_TEXTS rows (per item the claim or question, per run and source the answer
     and the cited evidence, as the format gives them; ``tables.items``).

The comparison is named as the tables name the accounting: study ``study1``, format ``official``,
parser ``none``, budget ``full`` (``prediction_files.tables``). The gold column holds the gold
label where the answers are labels, else the gold as the format writes it (KILT's answers).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..accounting.items import Comparison, item_rows
from ..accounting.metrics import METRIC_MULTIPLIER
from ..tables.items import ITEM_TEXTS
from .runs import BUDGET, FORMAT, PARSER, Runs


def runs_comparison(runs: Runs, system: str, sources: Sequence[str]) -> Comparison:
    return Comparison("study1", runs.format, system, FORMAT, PARSER, BUDGET, sources[0], sources[1])


def runs_items(runs: Runs, *, system: str, sources: Sequence[str], families: pd.DataFrame | None = None) -> pd.DataFrame:
    """ITEMS rows of the runs (one comparison; ``families`` a FAMILIES frame or None)."""
    gold = runs.gold_class if runs.gold_class is not None else runs.texts.get("gold")
    family = None
    if families is not None:
        family = families.set_index("claim_id")["family_id"].reindex(runs.units).tolist()
    return item_rows(runs_comparison(runs, system, sources), runs.units, runs.num, runs.den,
                     METRIC_MULTIPLIER[runs.metric], gold=gold, families=family, answer=runs.answer,
                     eligible=runs.eligible, evidence=runs.evidence)


def runs_item_texts(runs: Runs, *, system: str, sources: Sequence[str]) -> pd.DataFrame:
    """ITEM_TEXTS rows of the runs: each item's claim once, each run's answer and cited evidence
    per source (``replicate`` the run number), where the format gives them."""
    K, R = len(runs.units), runs.n_runs
    units = np.asarray(runs.units, dtype=object)
    parts = []
    if "claim" in runs.texts:
        parts.append(pd.DataFrame({"item_id": units, "kind": "claim", "system": "", "format": "", "source": "",
                                   "budget": "", "replicate": np.int64(-1), "text": runs.texts["claim"]}))
    for kind in ("answer", "evidence"):
        if kind not in runs.texts:
            continue
        k, r, a = (x.ravel() for x in np.meshgrid(np.arange(K), np.arange(R), np.arange(2), indexing="ij"))
        parts.append(pd.DataFrame({"item_id": units[k], "kind": kind, "system": system, "format": FORMAT,
                                   "source": np.asarray(sources, dtype=object)[a], "budget": BUDGET,
                                   "replicate": np.asarray(runs.replicates, dtype=np.int64)[r],
                                   "text": runs.texts[kind][k, r, a]}))
    if not parts:
        return ITEM_TEXTS.empty().to_pandas()
    frame = pd.concat(parts, ignore_index=True).assign(dataset=runs.format)
    frame["text"] = frame["text"].astype(str)
    return frame[ITEM_TEXTS.columns]
