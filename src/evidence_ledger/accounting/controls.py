"""The greedy controls analysed (the paper's Appendix F): population, feasibility and results.

In:  ANSWER_INDICATORS / EVIDENCE_INDICATORS / RELEVANT frames of one dataset x model, claim
     FAMILIES, the control budget, formats, primary sources and the alternative code mappings.
Out: one row per (format, control) with

* ``units`` - evaluation units (claims; SciFact claim x retrieved abstract) that have the
  control's greedy answer; ``units_total`` - units of the ``none`` control (every unit);
  ``feasibility = 100 * units / units_total`` (gold is asked only where it fits the budget,
  so its shortfall is the infeasible count ``units_total - units``);
* ``score`` = T_cc: control answers scored with control evidence; ``score_none`` = T_nn:
  the ``none`` answers with the (empty) ``none`` evidence, on the same units;
* E-type contrasts against ``none`` at fixed answers: ``E_none = T_nc - T_nn`` (the ``none``
  answers, control evidence instead of none) and ``E_control = T_cc - T_cn`` (the control's
  answers); ``gain = T_cc - T_nn``;
* ``agreement`` - share of the units whose control answer equals the ``none`` answer
  (parsed label, INVALID included as a label).

Controls: ``none``, ``gold``, ``swap_{source}``, ``reversed_{source}`` (evidence sources of the
same name) and every alternative code mapping ``codes:{mapping}`` x primary source (answers
of format ``codes:{mapping}`` from that source, scored with that source's evidence; compared
with the ``none`` control in the codes format). Scores are computed on the control's units
only (the ``none`` rows restricted to them), so a control's contrasts never mix populations.
Intervals: claim families resampled by the Study 2 primary protocol (one greedy replicate, so
no seed resampling), a fresh ``PCG64(seed)`` per row.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .accuracy import interval_rows, ratio_statistic
from ..resampling.bootstrap import bootstrap_draws, contrast_statistic
from .estimands import cell_quantities
from .estimates import evaluate_exact
from .intervals import panel_counts
from .panel import aggregate_to_families, build_claim_panel
from ..vocabulary import CONTROL_NONE

CONTROL_QUANTITIES = ("score", "score_none", "E_none", "E_control", "gain")
# sources 0 = none, 1 = the control; T_ab = answers a, evidence b
_Q = cell_quantities(0, 0)
CONTROL_CONTRASTS = {"score": _Q["T11"], "score_none": _Q["T00"], "E_none": _Q["E0"], "E_control": _Q["E1"],
                     "gain": _Q["gain"]}


def control_cells(answers: pd.DataFrame, *, formats: Sequence[str], control_sources: Sequence[str],
                  primary_sources: Sequence[str], mappings: Sequence[str]) -> list[dict]:
    """Every analysed control: ``{format, control, answer_format, answer_source, evidence_source}``
    (``none`` first per format; code mappings only under ``codes``)."""
    out = []
    for fmt in formats:
        for c in control_sources:
            out.append({"format": fmt, "control": c, "answer_format": fmt, "answer_source": c, "evidence_source": c})
        if fmt == "codes":
            for m in mappings:
                for s in primary_sources:
                    out.append({"format": fmt, "control": f"codes:{m}@{s}", "answer_format": f"codes:{m}",
                                "answer_source": s, "evidence_source": s})
    return out


def control_frames(answers: pd.DataFrame, evidence: pd.DataFrame, relevant: pd.DataFrame, cell: dict, *,
                   dataset: str, system: str, parser: str, budget: str, replicate: int):
    """(answers, evidence, relevant) of a two-source panel ``[none, ctl]`` for one control cell,
    restricted to the units that have the control's answer; None when it has none."""
    base = answers[(answers["dataset"] == dataset) & (answers["system"] == system) & (answers["parser"] == parser)
                   & (answers["answer_budget"] == budget) & (answers["replicate"] == replicate)]
    ctl = base[(base["format"] == cell["answer_format"]) & (base["answer_source"] == cell["answer_source"])]
    none = base[(base["format"] == cell["format"]) & (base["answer_source"] == CONTROL_NONE)]
    if ctl.empty:
        return None
    keys = ctl[["claim_id", "doc_id"]].drop_duplicates()
    none = none.merge(keys, on=["claim_id", "doc_id"], how="inner")
    ans = pd.concat([none.assign(answer_source=CONTROL_NONE, format="f"), ctl.assign(answer_source="ctl", format="f")],
                    ignore_index=True)
    ev = evidence[(evidence["dataset"] == dataset) & (evidence["evidence_budget"] == budget)]
    ev = pd.concat([ev[ev["evidence_source"] == CONTROL_NONE].assign(evidence_source=CONTROL_NONE),
                    ev[ev["evidence_source"] == cell["evidence_source"]].assign(evidence_source="ctl")],
                   ignore_index=True)
    rel = relevant[(relevant["dataset"] == dataset) & relevant["claim_id"].isin(set(keys["claim_id"]))]
    return ans, ev, rel


def agreement_counts(ans: pd.DataFrame, unit_family: pd.Series, n_families: int) -> np.ndarray:
    """(families, 1, 2) ``[units whose ctl answer equals the none answer, units]``."""
    wide = ans.pivot_table(index=["claim_id", "doc_id"], columns="answer_source", values="predicted_label",
                           aggfunc="first")
    same = (wide["ctl"] == wide[CONTROL_NONE]).to_numpy(dtype=np.int64)
    fam = wide.index.get_level_values("claim_id").map(unit_family).to_numpy(dtype=np.int64)
    out = np.zeros((n_families, 1, 2), dtype=np.int64)
    np.add.at(out, (fam, 0, 0), same)
    np.add.at(out, (fam, 0, 1), 1)
    return out


def control_rows(answers: pd.DataFrame, evidence: pd.DataFrame, relevant: pd.DataFrame, families: pd.DataFrame, *,
                 dataset: str, system: str, parser: str, budget: str, replicate: int, formats: Sequence[str],
                 control_sources: Sequence[str], primary_sources: Sequence[str], mappings: Sequence[str],
                 draws: int, seed: int, batch_size: int, tail: float) -> list[dict]:
    """Long rows (one per format x control x quantity) of the controls analysis of one panel."""
    rows = []
    cells = control_cells(answers, formats=formats, control_sources=control_sources,
                          primary_sources=primary_sources, mappings=mappings)
    totals: dict[str, int] = {}
    for cell in cells:
        frames = control_frames(answers, evidence, relevant, cell, dataset=dataset, system=system, parser=parser,
                                budget=budget, replicate=replicate)
        units = 0 if frames is None else int(len(frames[0][frames[0]["answer_source"] == "ctl"]))
        if cell["control"] == CONTROL_NONE:
            totals[cell["format"]] = units
        total = totals.get(cell["format"], 0)
        meta = {"dataset": dataset, "system": system, "parser": parser, "format": cell["format"],
                "control": cell["control"], "budget": budget, "units": units, "units_total": total,
                "feasibility": 100.0 * units / total if total else float("nan")}
        if frames is None:
            rows.append({**meta, "quantity": "units", "estimate": float(units), "lower": np.nan, "upper": np.nan,
                         "boot_mean": np.nan, "boot_sd": np.nan, "n_clusters": 0})
            continue
        ans, ev, rel = frames
        panel = build_claim_panel(ans, ev, rel, dataset=dataset, system=system, parser=parser, formats=["f"],
                                  sources=[CONTROL_NONE, "ctl"], answer_budgets=[budget], evidence_budgets=[budget],
                                  replicates=[replicate])
        fam_panel = aggregate_to_families(panel, families)
        contrasts = [CONTROL_CONTRASTS[q] for q in CONTROL_QUANTITIES]
        counts, index = panel_counts(fam_panel, contrasts, [replicate])
        drawn = bootstrap_draws(counts, contrast_statistic(contrasts, index, fam_panel.multiplier, counts),
                                draws=draws, seed=seed, batch_size=batch_size, resample_seeds=True)
        est = [float(evaluate_exact(panel, c, [replicate])) for c in contrasts]
        fam = families[families["dataset"] == dataset].set_index("claim_id")["family_id"]
        fpos = {f: i for i, f in enumerate(fam_panel.units)}
        agree = agreement_counts(ans, fam.map(fpos), len(fam_panel.units))
        a_draws = bootstrap_draws(agree, ratio_statistic(1), draws=draws, seed=seed, batch_size=batch_size,
                                  resample_seeds=True)
        a_tot = agree.sum(axis=0)[0]
        ivs = interval_rows(np.concatenate([drawn, a_draws], axis=1),
                            est + [100.0 * a_tot[0] / a_tot[1]], tail)
        for q, iv in zip(CONTROL_QUANTITIES + ("agreement",), ivs):
            rows.append({**meta, "quantity": q, **iv, "n_clusters": len(fam_panel.units)})
    return [dict(r, tail=tail, n_draws=draws, seed=seed) for r in rows]
