"""Decision labels for the Study 2 primary family ("What Changes When Fact-Verification Scores Improve?",
Study 2).

In:  the 12 primary contrasts (dataset x system x factor on E0) with their estimates,
     Bonferroni-adjusted intervals and per-seed values.
Out: a per-contrast criteria table and one label:

* **replicated dependence** -- some factor has, for *both* (all) systems on the same two or
  more datasets including the required one (SciFact), the same direction, magnitude
  >= ``magnitude`` points, an adjusted interval excluding zero, and at least
  ``min_agreeing_seeds`` of the sampled seeds with a contrast of that sign;
* **bounded stability** -- every adjusted interval lies inside ``[-bound, +bound]``;
* **restricted/mixed evidence** -- anything else.

Also Figure 1 (:func:`forest_plot`): the primary contrasts with their intervals.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from ..files.safe_files import atomic_file

REPLICATED = "replicated dependence"
BOUNDED = "bounded stability"
MIXED = "restricted/mixed evidence"


@dataclass(frozen=True)
class DecisionRule:
    """The decision rule's settings (config ``accounting.decision``; defaults in config/defaults.yaml only)."""

    magnitude: float
    min_agreeing_seeds: int
    min_datasets: int
    required_dataset: str
    bound: float
    # Bootstrap bounds are sums of floating-point ratios: a bound whose exact value is 0 can
    # come out as +-1e-15. Bounds within this many points of zero count as zero.
    zero_tolerance: float = 1e-9


def criteria_table(contrasts: pd.DataFrame, seed_values: pd.DataFrame, rule: DecisionRule) -> pd.DataFrame:
    """Which criteria each primary contrast met.

    ``contrasts``: columns dataset, system, factor, estimate, lower, upper.
    ``seed_values``: columns dataset, system, factor, replicate, value (one row per sampled
    seed). A seed agrees when its value has the (nonzero) sign of the estimate."""
    rows = []
    for row in contrasts.itertuples(index=False):
        seeds = seed_values[(seed_values["dataset"] == row.dataset) & (seed_values["system"] == row.system)
                            & (seed_values["factor"] == row.factor)]
        direction = int(np.sign(row.estimate))
        agree = int((np.sign(seeds["value"].to_numpy()) == direction).sum()) if direction else 0
        magnitude_ok = bool(abs(row.estimate) >= rule.magnitude)
        interval_ok = bool(row.lower > rule.zero_tolerance or row.upper < -rule.zero_tolerance)
        seeds_ok = bool(direction != 0 and agree >= rule.min_agreeing_seeds)
        rows.append({
            "dataset": row.dataset, "system": row.system, "factor": row.factor, "estimate": float(row.estimate),
            "lower": float(row.lower), "upper": float(row.upper), "direction": direction,
            "magnitude_ok": magnitude_ok, "interval_ok": interval_ok, "seeds_agreeing": agree,
            "n_seeds": int(len(seeds)), "seeds_ok": seeds_ok,
            "local_ok": magnitude_ok and interval_ok and seeds_ok,
            "within_bound": bool(row.lower >= -rule.bound and row.upper <= rule.bound),
        })
    return pd.DataFrame(rows)


def decide(criteria: pd.DataFrame, rule: DecisionRule, systems: Sequence[str] | None = None) -> dict:
    """The recorded label from a criteria table (see module docstring)."""
    systems = sorted(set(criteria["system"])) if systems is None else list(systems)
    for factor in sorted(set(criteria["factor"])):
        for direction in (1, -1):
            qualifying = []
            for dataset in sorted(set(criteria["dataset"])):
                sub = criteria[(criteria["factor"] == factor) & (criteria["dataset"] == dataset)]
                ok = [bool(((sub["system"] == s) & sub["local_ok"] & (sub["direction"] == direction)).any())
                      for s in systems]
                if systems and all(ok):
                    qualifying.append(dataset)
            if len(qualifying) >= rule.min_datasets and rule.required_dataset in qualifying:
                return {"label": REPLICATED, "factor": factor, "direction": direction,
                        "datasets": ",".join(qualifying),
                        "reason": f"{factor} effect with sign {direction:+d} met magnitude, interval and seed "
                                  f"criteria for all systems on {', '.join(qualifying)}"}
    if len(criteria) and bool(criteria["within_bound"].all()):
        return {"label": BOUNDED, "factor": "", "direction": 0, "datasets": "",
                "reason": f"all {len(criteria)} adjusted intervals lie inside [-{rule.bound:g}, +{rule.bound:g}]"}
    local = criteria[criteria["local_ok"]]
    where = ", ".join(f"{r.dataset}/{r.system}/{r.factor}" for r in local.itertuples()) or "none"
    return {"label": MIXED, "factor": "", "direction": 0, "datasets": "",
            "reason": f"no factor replicated across systems on >= {rule.min_datasets} datasets including "
                      f"{rule.required_dataset}; {int((~criteria['within_bound']).sum())} intervals extend beyond "
                      f"+/-{rule.bound:g}; contrasts meeting the local criteria: {where}"}


def forest_plot(intervals: pd.DataFrame, bound: float, png_path, svg_path, title: str = "") -> None:
    """Figure 1: the primary contrasts with their Bonferroni intervals and the +/-bound band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.patches
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "evidence-ledger"  # stable SVG element ids across reruns
    frame = intervals.reset_index(drop=True)
    n = len(frame)
    fig, ax = plt.subplots(figsize=(6.5, 0.42 * n + 1.4))
    ax.axvspan(-bound, bound, color="0.9", zorder=0, label=f"[-{bound:g}, +{bound:g}]")
    ax.axvline(0, color="0.4", lw=0.8, zorder=1)
    ys = np.arange(n)[::-1]
    colors = {"format": "tab:blue", "context": "tab:orange"}
    for y, row in zip(ys, frame.itertuples()):
        c = colors.get(row.factor, "k")
        ax.plot([row.lower, row.upper], [y, y], color=c, lw=2, zorder=2)
        ax.plot([row.estimate], [y], "o", color=c, zorder=3)
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{r.dataset} / {r.system} / {r.factor}" for r in frame.itertuples()], fontsize=8)
    ax.set_xlabel("effect on E0 (points), Bonferroni-adjusted interval")
    if title:
        ax.set_title(title, fontsize=9)
    handles = [plt.Line2D([], [], color=v, marker="o", lw=2, label=f"{k} effect") for k, v in colors.items()]
    # the band is the decision rule's bounded-stability region (decision.bound), not an interval
    handles.append(matplotlib.patches.Patch(color="0.9", label=f"stability bound: within ±{bound:g} points"))
    ax.legend(handles=handles, loc="best", fontsize=7, framealpha=0.9)
    fig.tight_layout()
    with atomic_file(png_path) as tmp:
        fig.savefig(tmp, format="png", dpi=150, metadata={"Software": None})
    with atomic_file(svg_path) as tmp:
        fig.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
