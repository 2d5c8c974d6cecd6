"""Bootstrap intervals of count panels: the panel side of the cluster bootstrap.

In:  :class:`~.panel.CountPanel` objects (one, or several sharing their clusters), a
     comparison family (``estimands.family_contrasts``), draw settings and the Bonferroni tail.
Out: one interval row per panel x comparison (estimate, percentile bounds, bootstrap mean
     and sd, draw settings), and INTERVALS frames (``tables.accounting``) built from them.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd
from tqdm import tqdm

from ..tables.accounting import INTERVALS
from ..resampling.bootstrap import BootstrapJob, contrast_statistic, percentile_interval, run_jobs
from .estimands import companion_contrasts, family_contrasts
from .estimates import evaluate_exact
from .reference import attach_reference


def panel_counts(panel, contrasts, replicates: Sequence[int]) -> tuple[np.ndarray, dict]:
    """Flatten the cells ``contrasts`` need from a ``CountPanel`` into (units, seeds, stats)
    int64 (float64 for a panel of continuous numerators), with the ``stat_index`` for
    :func:`contrast_statistic`."""
    ridx = panel.replicate_index(replicates)
    cells = []
    for terms in contrasts:
        for _, cell in terms:
            if cell not in cells:
                cells.append(cell)
    dens = []
    for f, a, u, _, _ in cells:
        if (f, a, u) not in dens:
            dens.append((f, a, u))
    cols = [panel.num[:, ridx, f, a, u, b, v] for f, a, u, b, v in cells]
    cols += [panel.den[:, ridx, f, a, u] for f, a, u in dens]
    counts = np.stack(cols, axis=2)
    counts = counts.astype(np.float64 if np.issubdtype(counts.dtype, np.floating) else np.int64)
    index = {cell: (i, len(cells) + dens.index(cell[:3])) for i, cell in enumerate(cells)}
    return counts, index


def panel_intervals(panels, family: str, *, replicates: Sequence[int], resample_seeds: bool, draws: int, seed: int,
                    batch_size: int, tail: float, progress: Callable[[int], None] | None = None) -> list[dict]:
    """Bootstrap one or more panels that share their clusters (the models of one dataset) for
    one family, from a fresh ``PCG64(seed)``; one row per panel x comparison.

    Bootstrapping panels with the same clusters jointly gives exactly the draws each would get
    alone (same seed, same cluster count, same protocol), at the cost of one set of index
    draws and one multiplicity matrix per batch."""
    job = panel_interval_job(panels, family, replicates=replicates, resample_seeds=resample_seeds, draws=draws,
                             seed=seed, batch_size=batch_size, tail=tail)
    return run_jobs([job], draws=draws, seed=seed, batch_size=batch_size, resample_seeds=resample_seeds,
                    progress=progress)[0]


def panel_interval_job(panels, family: str, *, replicates: Sequence[int], resample_seeds: bool, draws: int,
                       seed: int, batch_size: int, tail: float) -> BootstrapJob:
    """The counts, statistic and row builder of :func:`panel_intervals` (to draw with other
    jobs of the same clusters: ``resampling.bootstrap.run_jobs``)."""
    if not isinstance(panels, (list, tuple)):
        panels = [panels]
    units = panels[0].units
    if any(p.units != units for p in panels):
        raise ValueError("panels bootstrapped jointly must share their clusters")
    comps = [(p_i, name, factor, contrast, in_family) for p_i, p in enumerate(panels)
             for in_family, listed in ((True, family_contrasts), (False, companion_contrasts))
             for name, factor, contrast in listed(family, len(p.formats), len(p.answer_budgets))]
    parts, index = [], {}
    offset = 0
    for p_i, p in enumerate(panels):
        mine = [c for i, _, _, c, _ in comps if i == p_i]
        counts, idx = panel_counts(p, mine, replicates)
        parts.append(counts)
        index.update({(p_i, cell): (n + offset, d + offset) for cell, (n, d) in idx.items()})
        offset += counts.shape[2]
    counts = np.concatenate(parts, axis=2)
    multipliers = {p.multiplier for p in panels}
    if len(multipliers) != 1:
        raise ValueError("panels bootstrapped jointly must share their metric")
    contrasts = [tuple((coef, (p_i, cell)) for coef, cell in c) for p_i, _, _, c, _ in comps]

    def finish(drawn: np.ndarray) -> list[dict]:
        lo, hi = percentile_interval(drawn, tail)
        rows = []
        for i, (p_i, quantity, factor, contrast, in_family) in enumerate(comps):
            panel = panels[p_i]
            rows.append({"dataset": panel.dataset, "system": panel.system, "quantity": quantity, "factor": factor,
                         "estimate": float(evaluate_exact(panel, contrast, replicates)), "lower": float(lo[i]),
                         "upper": float(hi[i]), "boot_mean": float(drawn[:, i].mean()),
                         "boot_sd": float(drawn[:, i].std(ddof=1)) if draws > 1 else float("nan"), "tail": tail,
                         "n_draws": draws, "seed": seed, "batch_size": batch_size, "n_clusters": len(panel.units),
                         "n_seed_indices": len(replicates) if resample_seeds else 0, "in_family": in_family})
        return rows

    return BootstrapJob(counts, contrast_statistic(contrasts, index, multipliers.pop(), counts), finish)


def interval_table(rows: list[dict], *, study: str, family: str, population_of, family_size: int,
                   reference: pd.DataFrame | None) -> pd.DataFrame:
    """INTERVALS rows from :func:`panel_intervals` rows: study, family, population, family size,
    comparison count and the reference columns added, in the table's column order."""
    frame = pd.DataFrame(rows)
    frame.insert(0, "study", study)
    frame.insert(1, "family", family)
    frame.insert(2, "population", population_of)
    frame["family_size"] = family_size
    if "in_family" not in frame.columns:
        frame["in_family"] = True
    counted = frame[frame["in_family"].astype(bool)]
    frame["n_comparisons"] = len(counted[counted["population"] == frame["population"].iat[0]])
    frame = attach_reference(frame, reference)
    return frame[list(INTERVALS.columns)]


def draw_progress_logger(log, label: str, draws: int):
    """A tqdm bar (stderr) plus log lines at every 10% of the draws."""
    bar = tqdm(total=draws, desc=label, unit="draw", mininterval=5, leave=False)
    state = {"done": 0, "next": max(1, draws // 10)}

    def progress(done: int) -> None:
        bar.update(done - state["done"])
        state["done"] = done
        if log and (done >= state["next"] or done == draws):
            log.info("%s: %d / %d draws", label, done, draws)
            state["next"] += max(1, draws // 10)
        if done == draws:
            bar.close()

    return progress
