"""The Study 1 decomposition figure: gain = E0 + A1 = A0 + E1, bars with intervals.

In:  per component (``gain``, ``E0``, ``A1``, ``A0``, ``E1``) a :class:`Bar`: the point
     estimate, the interval bounds and the paper's value, in points (NaN where absent).
Out: a PNG whose bytes depend only on the numbers (no software or date metadata).
"""
from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import Mapping

import matplotlib

matplotlib.use("Agg")
import matplotlib.patches  # noqa: E402  (after the backend is chosen)
import matplotlib.pyplot as plt  # noqa: E402

from ..safe_files import write_bytes_atomic  # noqa: E402

# (group label, components) in drawing order; the two groups are the two paths from T00 to T11
DECOMPOSITION_GROUPS = (
    ("gain\nT11 − T00", ("gain",)),
    ("evidence first\nE0 + A1", ("E0", "A1")),
    ("answers first\nA0 + E1", ("A0", "E1")),
)
COLOURS = {"gain": "0.45", "E0": "tab:blue", "E1": "tab:blue", "A0": "tab:orange", "A1": "tab:orange"}


@dataclass(frozen=True)
class Bar:
    estimate: float
    lower: float = math.nan
    upper: float = math.nan
    paper: float = math.nan


def decomposition_figure(bars: Mapping[str, Bar], png_path, title: str = "") -> None:
    """The figure of :func:`decomposition_png_bytes` written (atomically) to ``png_path``."""
    write_bytes_atomic(png_path, decomposition_png_bytes(bars, title))


def decomposition_png_bytes(bars: Mapping[str, Bar], title: str = "") -> bytes:
    """Bars from zero for gain, E0, A1 (evidence first) and A0, E1 (answers first), each with
    its interval as an error bar and the paper's value as a hollow diamond. Components absent
    from ``bars`` are left out; with no bars at all the figure says so."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    x, ticks, labels, groups = 0.0, [], [], []
    for group, names in DECOMPOSITION_GROUPS:
        present = [n for n in names if n in bars]
        if not present:
            continue
        start = x
        for name in present:
            ticks.append(x)
            labels.append(name)
            bar = bars[name]
            ax.bar(x, bar.estimate, width=0.7, color=COLOURS[name], zorder=2)
            if not (math.isnan(bar.lower) or math.isnan(bar.upper)):
                ax.errorbar(x, bar.estimate, yerr=[[bar.estimate - bar.lower], [bar.upper - bar.estimate]],
                            fmt="none", ecolor="black", capsize=4, lw=1.2, zorder=3)
            if not math.isnan(bar.paper):
                ax.plot(x, bar.paper, marker="D", mfc="white", mec="black", ms=6, ls="none", zorder=4)
            x += 1.0
        groups.append(((start + x - 1.0) / 2, group))
        x += 0.8
    if not ticks:
        ax.text(0.5, 0.5, "no Study 1 estimates in this run", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
    else:
        ax.set_xticks(ticks)
        ax.set_xticklabels(labels, fontsize=9)
        for centre, group in groups:
            ax.annotate(group, (centre, 0), xycoords=("data", "axes fraction"), xytext=(0, -18),
                        textcoords="offset points", ha="center", va="top", fontsize=8, color="0.3")
        ax.axhline(0, color="0.3", lw=0.8, zorder=1)
        handles = [matplotlib.patches.Patch(color=COLOURS["E0"], label="evidence change (E)"),
                   matplotlib.patches.Patch(color=COLOURS["A0"], label="answer change (A)"),
                   plt.Line2D([], [], color="black", marker="|", ls="none", ms=10, label="interval")]
        if any(not math.isnan(bar.paper) for bar in bars.values()):  # an accounted system has no paper values
            handles.append(plt.Line2D([], [], marker="D", mfc="white", mec="black", ls="none", label="paper"))
        ax.legend(handles=handles, fontsize=7, loc="best", framealpha=0.9)
    ax.set_ylabel("points")
    ax.tick_params(axis="x", length=0)
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=150, metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()
