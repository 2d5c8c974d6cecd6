"""Evidence/answer accounting: cross-scoring T_ab from saved indicators, exactly.

In:  ANSWER_INDICATORS, EVIDENCE_INDICATORS and RELEVANT frames (``tables.scoring``).
Out: :class:`CountPanel` objects (integer count arrays per claim or per claim family) and
     point estimates computed from their corpus totals in exact rational arithmetic
     (``fractions.Fraction``), converted to float (points) only when written out.

Every metric here is a ratio of summed integer counts, so the bootstrap (``bootstrap``)
can resample clusters and recompute any estimand from the same count arrays:

* FEVER / FEVEROUS (``metric='strict'``): ``T_ab = 100 * sum_i correct_a[i] * eligible_b[i] / N``.
* SciFact (``metric='f1'``): ``T_ab = 100 * 2 C_ab / (P_a + R)`` with ``C_ab`` the sum over
  (claim, abstract) of ``label_correct_a * eligible_b``, ``P_a`` the submitted abstracts,
  ``R`` the gold relevant abstracts (never-retrieved ones included). Corpus totals, never
  per-claim F1 averages.

A panel cell is ``(format, answer_source a, answer_budget u, evidence_source b,
evidence_budget v)``; Study 1 has one format (``verifier``) and budget (``full``); Study 2
crosses budgets, so ``T_ab(u, v)`` for ``u != v`` comes from the same arrays. Scores of
several replicates (checkpoints, sampled seeds) are averaged per replicate (each
replicate's corpus metric, then the mean).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .errors import InputError

METRIC_BY_DATASET = {"fever": "strict", "feverous": "strict", "scifact": "f1"}
METRIC_MULTIPLIER = {"strict": 1, "f1": 2}
INVALID = "INVALID"

Cell = tuple[int, int, int, int, int]  # (format, answer source, answer budget, evidence source, evidence budget)
Contrast = tuple[tuple[Fraction, Cell], ...]


def claim_sort_key(claim_id: str):
    """Numeric ids in numeric order, then other ids lexicographically."""
    return (0, int(claim_id), "") if claim_id.isdigit() else (1, 0, claim_id)


def sort_claims(ids: Iterable[str]) -> list[str]:
    return sorted(set(ids), key=claim_sort_key)


def metric_for(dataset: str) -> str:
    """The scoring metric of a dataset: 'strict' (FEVER, FEVEROUS) or 'f1' (SciFact)."""
    try:
        return METRIC_BY_DATASET[dataset]
    except KeyError:
        raise ValueError(f"no accounting metric for dataset {dataset!r}; known: {sorted(METRIC_BY_DATASET)}")


@dataclass
class CountPanel:
    """Integer count arrays of one (dataset, system) panel.

    ``num[k, r, f, a, u, b, v]``: numerator counts of unit ``k`` (claim or family) for
    replicate ``r`` (strictly correct claims / correct+rationalised abstracts).
    ``den[k, r, f, a, u]``: denominator counts (N claims, or P_a + R).
    Axis labels are kept so cells can be addressed by name.
    """

    dataset: str
    system: str
    metric: str
    units: list[str]
    replicates: list[int]
    formats: list[str]
    sources: list[str]
    answer_budgets: list[str]
    evidence_budgets: list[str]
    num: np.ndarray
    den: np.ndarray
    coverage: dict = field(default_factory=dict)

    @property
    def multiplier(self) -> int:
        return METRIC_MULTIPLIER[self.metric]

    def replicate_index(self, replicates: Sequence[int]) -> list[int]:
        missing = [r for r in replicates if r not in self.replicates]
        if missing:
            raise ValueError(f"panel {self.dataset}/{self.system} has no replicates {missing}")
        return [self.replicates.index(r) for r in replicates]

    def totals(self, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Corpus totals (int64). ``mask`` (units, R, F, U) bool restricts the numerators only,
        so contributions keep the full denominator."""
        den = self.den.sum(axis=0)
        if mask is None:
            return self.num.sum(axis=0), den
        m = mask[:, :, :, None, :, None, None]
        return np.where(m, self.num, 0).sum(axis=0), den

    def subset(self, keep: np.ndarray) -> "CountPanel":
        """A panel restricted to the units where ``keep`` is True (denominators restricted too)."""
        return CountPanel(self.dataset, self.system, self.metric, [u for u, k in zip(self.units, keep) if k],
                          self.replicates, self.formats, self.sources, self.answer_budgets,
                          self.evidence_budgets, self.num[keep], self.den[keep], dict(self.coverage))


# ----------------------------------------------------------------------------------------
# Building count panels from indicator frames
# ----------------------------------------------------------------------------------------

def _check_unique(frame: pd.DataFrame, keys: list[str], path: str) -> None:
    dup = frame.duplicated(keys, keep=False)
    if dup.any():
        first = frame.loc[dup, keys].iloc[0].to_dict()
        raise InputError(path, None, "claim_id",
                         f"{int(dup.sum())} rows share their key {keys}; first: {first}")


def _codes(values: pd.Series, levels: Sequence, path: str, field_name: str) -> np.ndarray:
    lookup = {lvl: i for i, lvl in enumerate(levels)}
    codes = values.map(lookup)
    if codes.isna().any():
        bad = values[codes.isna()].iloc[0]
        raise InputError(path, None, field_name, f"value {bad!r} is not one of {list(levels)}")
    return codes.to_numpy(dtype=np.int64)


def build_claim_panel(
    answers: pd.DataFrame,
    evidence: pd.DataFrame,
    relevant: pd.DataFrame,
    *,
    dataset: str,
    system: str,
    parser: str,
    formats: Sequence[str],
    sources: Sequence[str],
    answer_budgets: Sequence[str],
    evidence_budgets: Sequence[str],
    replicates: Sequence[int],
    metric: str | None = None,
    paths: Mapping[str, str] | None = None,
) -> CountPanel:
    """Per-claim count arrays for one panel.

    Rows of ``answers`` / ``evidence`` outside the panel grid (other datasets, systems,
    parsers, control sources, ...) are not used; how many were left out is recorded in
    ``panel.coverage``. A (claim, doc) answered but lacking an evidence row for some
    evidence source x budget is scored as not eligible and counted
    (``answer_pairs_missing_evidence``). FEVER/FEVEROUS need exactly one answer row per
    claim and cell (otherwise ``InputError``); SciFact claims without answer rows contribute
    only their relevant abstracts to R.
    """
    paths = dict(paths or {})
    apath, epath, rpath = (paths.get(k, k) for k in ("answers", "evidence", "relevant"))
    metric = metric or metric_for(dataset)
    rel = relevant[relevant["dataset"] == dataset]
    _check_unique(rel, ["claim_id"], rpath)
    units = sort_claims(rel["claim_id"])
    if not units:
        raise InputError(rpath, None, "dataset", f"no claims for dataset {dataset!r}")
    pos = {c: i for i, c in enumerate(units)}
    n_rel = rel.set_index("claim_id")["n_relevant"].reindex(units).to_numpy(dtype=np.int64)

    ans_all = answers[(answers["dataset"] == dataset) & (answers["system"] == system) & (answers["parser"] == parser)]
    in_grid = (ans_all["format"].isin(formats) & ans_all["answer_source"].isin(sources)
               & ans_all["answer_budget"].isin(answer_budgets) & ans_all["replicate"].isin(replicates))
    ans = ans_all[in_grid]
    if ans.empty:
        raise InputError(apath, None, "system",
                         f"no answer rows for dataset={dataset!r} system={system!r} parser={parser!r} in the grid")
    _check_unique(ans, ["claim_id", "doc_id", "format", "answer_source", "answer_budget", "replicate"], apath)
    unknown = ~ans["claim_id"].isin(pos)
    if unknown.any():
        raise InputError(apath, None, "claim_id",
                         f"{int(unknown.sum())} answer rows name claims absent from {rpath}; "
                         f"first: {ans.loc[unknown, 'claim_id'].iloc[0]!r}")
    ev_all = evidence[evidence["dataset"] == dataset]
    ev = ev_all[ev_all["evidence_source"].isin(sources) & ev_all["evidence_budget"].isin(evidence_budgets)]
    _check_unique(ev, ["claim_id", "doc_id", "evidence_source", "evidence_budget"], epath)

    K, R, F, A, U, B, V = (len(units), len(replicates), len(formats), len(sources), len(answer_budgets),
                           len(sources), len(evidence_budgets))
    k = ans["claim_id"].map(pos).to_numpy(dtype=np.int64)
    r = _codes(ans["replicate"], list(replicates), apath, "replicate")
    f = _codes(ans["format"], formats, apath, "format")
    a = _codes(ans["answer_source"], sources, apath, "answer_source")
    u = _codes(ans["answer_budget"], answer_budgets, apath, "answer_budget")
    answer_cell = ((((k * R + r) * F + f) * A + a) * U + u)

    # denominators
    if metric == "strict":
        per_cell = np.bincount(answer_cell, minlength=K * R * F * A * U)
        if (per_cell != 1).any():
            bad = int((per_cell != 1).sum())
            idx = int(np.flatnonzero(per_cell != 1)[0])
            raise InputError(apath, None, "claim_id",
                             f"{bad} claim x cell combinations lack their single answer row "
                             f"(first claim {units[idx // (R * F * A * U)]!r}); every population claim "
                             f"needs an answer for every format, source, budget and replicate")
        den = per_cell.reshape(K, R, F, A, U).astype(np.int64)
    else:
        submitted = ans["submitted"].to_numpy(dtype=np.int64)
        den = np.bincount(answer_cell, weights=submitted, minlength=K * R * F * A * U)
        den = np.rint(den).astype(np.int64).reshape(K, R, F, A, U) + n_rel[:, None, None, None, None]

    # numerators: correct answers x eligible evidence on the same (claim, doc)
    correct = ans[ans["label_correct"].to_numpy(dtype=bool)]
    ck = correct[["claim_id", "doc_id"]].assign(cell=answer_cell[ans["label_correct"].to_numpy(dtype=bool)])
    evk = ev[["claim_id", "doc_id", "evidence_source", "evidence_budget", "eligible"]]
    merged = ck.merge(evk[evk["eligible"].to_numpy(dtype=bool)], on=["claim_id", "doc_id"], how="inner")
    b = _codes(merged["evidence_source"], sources, epath, "evidence_source")
    v = _codes(merged["evidence_budget"], evidence_budgets, epath, "evidence_budget")
    full = (merged["cell"].to_numpy(dtype=np.int64) * B + b) * V + v
    num = np.bincount(full, minlength=K * R * F * A * U * B * V).astype(np.int64).reshape(K, R, F, A, U, B, V)

    pairs = ans[["claim_id", "doc_id"]].drop_duplicates()
    have = pairs.merge(ev[["claim_id", "doc_id"]], on=["claim_id", "doc_id"], how="left", indicator=True)
    per_pair = have[have["_merge"] == "both"].groupby(["claim_id", "doc_id"]).size()
    missing_pairs = int(len(pairs) * B * V - per_pair.sum())
    answered = set(ans["claim_id"])
    coverage = {
        "population_claims": K,
        "answer_rows_used": int(len(ans)),
        "answer_rows_outside_grid": int((~in_grid).sum()),
        "evidence_rows_used": int(len(ev)),
        "evidence_rows_outside_grid": int(len(ev_all) - len(ev)),
        "answer_pairs": int(len(pairs)),
        "answer_pairs_missing_evidence": missing_pairs,
        "claims_without_answers": int(sum(1 for c in units if c not in answered)),
    }
    return CountPanel(dataset, system, metric, units, list(replicates), list(formats), list(sources),
                      list(answer_budgets), list(evidence_budgets), num, den, coverage)


def aggregate_to_families(panel: CountPanel, families: pd.DataFrame, path: str = "families") -> CountPanel:
    """Sum a claim panel's counts within claim families (the Study 2 resampling unit).

    Every population claim needs a family row (``InputError`` otherwise); family rows of
    claims outside the population are ignored (counted in coverage)."""
    fam = families[families["dataset"] == panel.dataset]
    _check_unique(fam, ["claim_id"], path)
    lookup = fam.set_index("claim_id")["family_id"]
    fam_of = lookup.reindex(panel.units)
    if fam_of.isna().any():
        raise InputError(path, None, "claim_id",
                         f"{int(fam_of.isna().sum())} population claims have no family; "
                         f"first: {fam_of.index[fam_of.isna()][0]!r}")
    fam_ids = sort_claims(fam_of)
    fpos = {x: i for i, x in enumerate(fam_ids)}
    idx = fam_of.map(fpos).to_numpy(dtype=np.int64)
    num = np.zeros((len(fam_ids),) + panel.num.shape[1:], dtype=np.int64)
    den = np.zeros((len(fam_ids),) + panel.den.shape[1:], dtype=np.int64)
    np.add.at(num, idx, panel.num)
    np.add.at(den, idx, panel.den)
    coverage = dict(panel.coverage, families=len(fam_ids),
                    family_rows_outside_population=int(len(fam) - fam["claim_id"].isin(panel.units).sum()))
    return CountPanel(panel.dataset, panel.system, panel.metric, fam_ids, panel.replicates, panel.formats,
                      panel.sources, panel.answer_budgets, panel.evidence_budgets, num, den, coverage)


# ----------------------------------------------------------------------------------------
# Contrasts: linear combinations of cell scores
# ----------------------------------------------------------------------------------------

def linear(*terms: tuple) -> Contrast:
    """Combine ``(coef, contrast_or_cell)`` pairs into one contrast (coefficients summed per
    cell, zero terms dropped, first-appearance order kept)."""
    acc: dict[Cell, Fraction] = {}
    for coef, item in terms:
        coef = Fraction(coef)
        if isinstance(item, tuple) and len(item) == 5 and all(isinstance(x, int) for x in item):
            item = ((Fraction(1), item),)
        for c2, cell in item:
            acc[cell] = acc.get(cell, Fraction(0)) + coef * c2
    return tuple((c, cell) for cell, c in acc.items() if c != 0)


def cell_quantities(f: int, u: int, v: int | None = None) -> dict[str, Contrast]:
    """T00..T11 and the accounting components at format ``f``, answer budget ``u`` and
    evidence budget ``v`` (default ``u``). Source 0 and 1 are the panel's two sources."""
    v = u if v is None else v
    T = {(a, b): ((Fraction(1), (f, a, u, b, v)),) for a in (0, 1) for b in (0, 1)}
    q = {
        "T00": T[0, 0], "T01": T[0, 1], "T10": T[1, 0], "T11": T[1, 1],
        "gain": linear((1, T[1, 1]), (-1, T[0, 0])),
        "E0": linear((1, T[0, 1]), (-1, T[0, 0])),
        "A1": linear((1, T[1, 1]), (-1, T[0, 1])),
        "A0": linear((1, T[1, 0]), (-1, T[0, 0])),
        "E1": linear((1, T[1, 1]), (-1, T[1, 0])),
        "interaction": linear((1, T[1, 1]), (-1, T[1, 0]), (-1, T[0, 1]), (1, T[0, 0])),
    }
    q["S00"], q["S11"], q["source_gain"] = q["T00"], q["T11"], q["gain"]
    q["Ebar"] = linear((Fraction(1, 2), q["E0"]), (Fraction(1, 2), q["E1"]))
    return q


STUDY1_QUANTITIES = ("T00", "T01", "T10", "T11", "gain", "E0", "A1", "A0", "E1", "interaction")
STUDY1_BOOTSTRAP = ("gain", "E0", "A1", "A0", "E1", "interaction")
PRIMARY_QUANTITIES = ("E0",)
EXPLORATORY_QUANTITIES = ("E1", "Ebar", "S00", "S11", "source_gain")
CELL_QUANTITIES = ("T00", "T01", "T10", "T11", "E0", "A1", "A0", "E1", "interaction", "source_gain", "Ebar")
CROSSED_COMPONENTS = ("input_first.input", "input_first.scoring", "scoring_first.scoring",
                      "scoring_first.input", "interaction", "input_mean", "scoring_mean")


def factor_effect(quantity: str, factor: str, n_formats: int = 2, n_budgets: int = 2) -> Contrast:
    """Effect of ``factor`` ('format': format level 1 - level 0; 'context': budget level 1 -
    level 0) on a cell quantity at matched budgets, averaged over the other factor's levels."""
    if factor == "format":
        terms = [(Fraction(1, n_budgets), cell_quantities(1, u)[quantity]) for u in range(n_budgets)]
        terms += [(Fraction(-1, n_budgets), cell_quantities(0, u)[quantity]) for u in range(n_budgets)]
    elif factor == "context":
        terms = [(Fraction(1, n_formats), cell_quantities(f, 1)[quantity]) for f in range(n_formats)]
        terms += [(Fraction(-1, n_formats), cell_quantities(f, 0)[quantity]) for f in range(n_formats)]
    else:
        raise ValueError(f"unknown factor {factor!r} (format, context)")
    return linear(*terms)


def crossed_gain(u: int, v: int, n_formats: int = 2) -> Contrast:
    """F(u, v) = T01(u, v) - T00(u, v) averaged over formats."""
    return linear(*[(Fraction(1, n_formats), cell_quantities(f, u, v)["E0"]) for f in range(n_formats)])


def crossed_components(n_formats: int = 2) -> dict[str, Contrast]:
    """The two-order split of the context contrast F(l,l) - F(s,s) (budget 0 = s, 1 = l).

    input first: [F(l,s) - F(s,s)] (input) + [F(l,l) - F(l,s)] (scoring);
    scoring first: [F(s,l) - F(s,s)] (scoring) + [F(l,l) - F(s,l)] (input);
    interaction F(l,l) - F(l,s) - F(s,l) + F(s,s); and the two order-averaged components."""
    F = {(u, v): crossed_gain(u, v, n_formats) for u in (0, 1) for v in (0, 1)}
    half = Fraction(1, 2)
    out = {
        "input_first.input": linear((1, F[1, 0]), (-1, F[0, 0])),
        "input_first.scoring": linear((1, F[1, 1]), (-1, F[1, 0])),
        "scoring_first.scoring": linear((1, F[0, 1]), (-1, F[0, 0])),
        "scoring_first.input": linear((1, F[1, 1]), (-1, F[0, 1])),
        "interaction": linear((1, F[1, 1]), (-1, F[1, 0]), (-1, F[0, 1]), (1, F[0, 0])),
    }
    out["input_mean"] = linear((half, out["input_first.input"]), (half, out["scoring_first.input"]))
    out["scoring_mean"] = linear((half, out["input_first.scoring"]), (half, out["scoring_first.scoring"]))
    out["context"] = linear((1, F[1, 1]), (-1, F[0, 0]))
    return out


# ----------------------------------------------------------------------------------------
# Exact evaluation
# ----------------------------------------------------------------------------------------

def exact_score(num_tot: np.ndarray, den_tot: np.ndarray, multiplier: int, r: int, cell: Cell) -> Fraction:
    """Score of one cell for replicate index ``r`` in points, exactly."""
    f, a, u, b, v = cell
    d = int(den_tot[r, f, a, u])
    if d == 0:
        raise ZeroDivisionError(f"zero denominator for replicate {r}, cell {cell}")
    return Fraction(100 * multiplier * int(num_tot[r, f, a, u, b, v]), d)


def evaluate_exact(panel: CountPanel, contrast: Contrast, replicates: Sequence[int],
                   mask: np.ndarray | None = None) -> Fraction:
    """Mean over ``replicates`` of the contrast of per-replicate corpus scores (exact).

    ``mask`` (units, R, F, U) restricts numerators, keeping full denominators: the result is
    that subset's contribution, and contributions of a partition sum to the whole."""
    num_tot, den_tot = panel.totals(mask)
    ridx = panel.replicate_index(replicates)
    total = Fraction(0)
    for r in ridx:
        for coef, cell in contrast:
            total += coef * exact_score(num_tot, den_tot, panel.multiplier, r, cell)
    return total / len(ridx)


# ----------------------------------------------------------------------------------------
# Study 1 extras (per-claim factorised indicators)
# ----------------------------------------------------------------------------------------

@dataclass
class ClaimIndicators:
    """Per-claim 0/1 arrays of a strict-metric panel: ``correct[k, r, a]``, ``eligible[k, b]``,
    predicted labels ``predicted[k, r, a]`` and ``gold[k]``."""

    units: list[str]
    replicates: list[int]
    sources: list[str]
    correct: np.ndarray
    eligible: np.ndarray
    predicted: np.ndarray
    gold: np.ndarray
    unresolved: np.ndarray  # (k,) bool: any unresolved unit under either source


def claim_indicators(answers: pd.DataFrame, evidence: pd.DataFrame, panel: CountPanel, *, parser: str,
                     paths: Mapping[str, str] | None = None) -> ClaimIndicators:
    """Factorised per-claim indicators for a strict-metric, single format/budget panel."""
    if panel.metric != "strict":
        raise ValueError("per-claim factorised indicators need a strict (FEVER/FEVEROUS) panel")
    paths = dict(paths or {})
    pos = {c: i for i, c in enumerate(panel.units)}
    K, R, A = len(panel.units), len(panel.replicates), len(panel.sources)
    ans = answers[(answers["dataset"] == panel.dataset) & (answers["system"] == panel.system)
                  & (answers["parser"] == parser) & answers["format"].isin(panel.formats[:1])
                  & answers["answer_budget"].isin(panel.answer_budgets[:1])
                  & answers["answer_source"].isin(panel.sources) & answers["replicate"].isin(panel.replicates)]
    k = ans["claim_id"].map(pos).to_numpy(dtype=np.int64)
    r = _codes(ans["replicate"], panel.replicates, paths.get("answers", "answers"), "replicate")
    a = _codes(ans["answer_source"], panel.sources, paths.get("answers", "answers"), "answer_source")
    correct = np.zeros((K, R, A), dtype=np.int64)
    correct[k, r, a] = ans["label_correct"].to_numpy(dtype=np.int64)
    predicted = np.full((K, R, A), "", dtype=object)
    predicted[k, r, a] = ans["predicted_label"].to_numpy(dtype=object)
    gold = np.full(K, "", dtype=object)
    gold[k] = ans["gold_label"].to_numpy(dtype=object)
    ev = evidence[(evidence["dataset"] == panel.dataset) & evidence["evidence_source"].isin(panel.sources)
                  & evidence["evidence_budget"].isin(panel.evidence_budgets[:1]) & evidence["claim_id"].isin(pos)]
    ek = ev["claim_id"].map(pos).to_numpy(dtype=np.int64)
    eb = _codes(ev["evidence_source"], panel.sources, paths.get("evidence", "evidence"), "evidence_source")
    eligible = np.zeros((K, A), dtype=np.int64)
    eligible[ek, eb] = ev["eligible"].to_numpy(dtype=np.int64)
    unresolved = np.zeros(K, dtype=bool)
    np.logical_or.at(unresolved, ek, ev["unresolved"].to_numpy() > 0)
    return ClaimIndicators(panel.units, panel.replicates, panel.sources, correct, eligible, predicted, gold,
                           unresolved)


def answer_accuracy(ind: ClaimIndicators, a: int) -> float:
    """Label accuracy of source-``a`` answers in points, averaged over replicates."""
    return float(100 * ind.correct[:, :, a].mean())


def macro_f1(gold: np.ndarray, predicted: np.ndarray, classes: Sequence[str]) -> float:
    """Macro-F1 in points over ``classes`` (the gold label set); a prediction outside the
    classes (INVALID) is wrong for every class. A class with no gold and no prediction has
    F1 0."""
    scores = []
    for c in classes:
        tp = int(np.sum((gold == c) & (predicted == c)))
        fp = int(np.sum((gold != c) & (predicted == c)))
        fn = int(np.sum((gold == c) & (predicted != c)))
        scores.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return float(100 * np.mean(scores))


def answer_macro_f1(ind: ClaimIndicators, a: int, classes: Sequence[str]) -> float:
    """Macro-F1 of source-``a`` answers, computed per replicate then averaged."""
    return float(np.mean([macro_f1(ind.gold, ind.predicted[:, r, a], classes) for r in range(len(ind.replicates))]))


def eligibility_rate(ind: ClaimIndicators, b: int) -> float:
    return float(100 * ind.eligible[:, b].mean())


def eq4_terms(ind: ClaimIndicators, a: int) -> dict[str, float]:
    """Eq. 4: ``E_a = mean(c_a) * mean(dE) + cov(c_a, dE)`` in points, where ``c_a`` is the
    replicate-averaged correctness of source-``a`` answers, ``dE = eligible_1 - eligible_0``
    and cov is the population covariance (divide by N)."""
    c = ind.correct[:, :, a].mean(axis=1)
    dE = (ind.eligible[:, 1] - ind.eligible[:, 0]).astype(np.float64)
    mc, md = c.mean(), dE.mean()
    cov = float(np.mean((c - mc) * (dE - md)))
    return {"accuracy": float(100 * mc), "eligibility_diff": float(100 * md), "product": float(100 * mc * md),
            "covariance": 100 * cov, "sum": float(100 * (mc * md + cov)), "direct": float(100 * np.mean(c * dE))}


# ----------------------------------------------------------------------------------------
# Study 2 extras
# ----------------------------------------------------------------------------------------

def identical_answer_mask(answers: pd.DataFrame, panel: CountPanel, *, parser: str) -> np.ndarray:
    """(units=claims, R, F, U) bool: the two sources' answers are identical and valid for the
    claim (SciFact: every answered abstract has the same valid label under both sources)."""
    pos = {c: i for i, c in enumerate(panel.units)}
    ans = answers[(answers["dataset"] == panel.dataset) & (answers["system"] == panel.system)
                  & (answers["parser"] == parser) & answers["format"].isin(panel.formats)
                  & answers["answer_source"].isin(panel.sources[:2]) & answers["answer_budget"].isin(panel.answer_budgets)
                  & answers["replicate"].isin(panel.replicates)]
    ans = ans.sort_values(["claim_id", "format", "answer_budget", "replicate", "answer_source", "doc_id"], kind="stable")
    key = ans["doc_id"].astype(str) + "=" + ans["predicted_label"].astype(str)
    grouped = (ans.assign(key=key, invalid=ans["predicted_label"] == INVALID)
               .groupby(["claim_id", "replicate", "format", "answer_budget", "answer_source"], sort=False)
               .agg(keys=("key", lambda s: "|".join(s)), invalid=("invalid", "any")).reset_index())
    wide = grouped.pivot_table(index=["claim_id", "replicate", "format", "answer_budget"], columns="answer_source",
                               values=["keys", "invalid"], aggfunc="first")
    s0, s1 = panel.sources[0], panel.sources[1]
    same = (wide[("keys", s0)] == wide[("keys", s1)]) & ~wide[("invalid", s0)].astype(bool) \
        & ~wide[("invalid", s1)].astype(bool)
    mask = np.zeros((len(panel.units), len(panel.replicates), len(panel.formats), len(panel.answer_budgets)), dtype=bool)
    idx = same.index.to_frame(index=False)
    k = idx["claim_id"].map(pos).to_numpy(dtype=np.int64)
    r = idx["replicate"].map({x: i for i, x in enumerate(panel.replicates)}).to_numpy(dtype=np.int64)
    f = idx["format"].map({x: i for i, x in enumerate(panel.formats)}).to_numpy(dtype=np.int64)
    u = idx["answer_budget"].map({x: i for i, x in enumerate(panel.answer_budgets)}).to_numpy(dtype=np.int64)
    mask[k, r, f, u] = same.fillna(False).to_numpy(dtype=bool)
    return mask


def invalid_rates(answers: pd.DataFrame, *, dataset: str, system: str, parser: str, formats: Sequence[str],
                  sources: Sequence[str], budgets: Sequence[str]) -> pd.DataFrame:
    """Share of claim-condition observations (claim x budget x replicate, both sources, all
    abstracts) with at least one INVALID answer, per format, pooled over budgets and all
    replicates present (greedy included)."""
    ans = answers[(answers["dataset"] == dataset) & (answers["system"] == system) & (answers["parser"] == parser)
                  & answers["format"].isin(formats) & answers["answer_source"].isin(sources)
                  & answers["answer_budget"].isin(budgets)]
    obs = (ans.assign(invalid=ans["predicted_label"] == INVALID)
           .groupby(["format", "claim_id", "answer_budget", "replicate"])["invalid"].any().reset_index())
    rows = []
    for fmt in formats:
        sub = obs[obs["format"] == fmt]
        n, k = int(len(sub)), int(sub["invalid"].sum())
        rows.append({"dataset": dataset, "system": system, "parser": parser, "format": fmt, "n_observations": n,
                     "n_with_invalid": k, "rate": float(100 * k / n) if n else float("nan")})
    return pd.DataFrame(rows)


def pattern_traces(answers: pd.DataFrame, evidence: pd.DataFrame, *, dataset: str, system: str, parser: str,
                   formats: Sequence[str], sources: Sequence[str], budgets: Sequence[str]) -> pd.DataFrame:
    """Units with scores (S00, S01, S10, S11) = (1,0,1,0) or (0,1,0,1) at matched budgets:
    both sources' answers correct, exactly one source's evidence eligible."""
    s0, s1 = sources[0], sources[1]
    ans = answers[(answers["dataset"] == dataset) & (answers["system"] == system) & (answers["parser"] == parser)
                  & answers["format"].isin(formats) & answers["answer_budget"].isin(budgets)]
    keys = ["claim_id", "doc_id", "format", "answer_budget", "replicate"]
    a0 = ans[ans["answer_source"] == s0][keys + ["gold_label", "predicted_label", "label_correct"]]
    a1 = ans[ans["answer_source"] == s1][keys + ["predicted_label", "label_correct"]]
    both = a0.merge(a1, on=keys, suffixes=("_0", "_1"))
    both = both[both["label_correct_0"].astype(bool) & both["label_correct_1"].astype(bool)]
    ev = evidence[evidence["dataset"] == dataset]
    e0 = ev[ev["evidence_source"] == s0][["claim_id", "doc_id", "evidence_budget", "eligible"]]
    e1 = ev[ev["evidence_source"] == s1][["claim_id", "doc_id", "evidence_budget", "eligible"]]
    both = both.merge(e0.rename(columns={"evidence_budget": "answer_budget", "eligible": "eligible_0"}),
                      on=["claim_id", "doc_id", "answer_budget"], how="left")
    both = both.merge(e1.rename(columns={"evidence_budget": "answer_budget", "eligible": "eligible_1"}),
                      on=["claim_id", "doc_id", "answer_budget"], how="left")
    both["eligible_0"] = both["eligible_0"].fillna(False).astype(bool)
    both["eligible_1"] = both["eligible_1"].fillna(False).astype(bool)
    both = both[both["eligible_0"] != both["eligible_1"]].copy()
    both["pattern"] = np.where(both["eligible_0"], "1010", "0101")
    out = pd.DataFrame({
        "dataset": dataset, "system": system, "format": both["format"], "budget": both["answer_budget"],
        "replicate": both["replicate"].astype(np.int64), "claim_id": both["claim_id"], "doc_id": both["doc_id"],
        "pattern": both["pattern"], "gold_label": both["gold_label"], "predicted_0": both["predicted_label_0"],
        "predicted_1": both["predicted_label_1"], "eligible_0": both["eligible_0"], "eligible_1": both["eligible_1"],
    })
    order = sorted(range(len(out)), key=lambda i: (out["pattern"].iat[i], claim_sort_key(out["claim_id"].iat[i]),
                                                   out["doc_id"].iat[i], out["format"].iat[i],
                                                   out["budget"].iat[i], int(out["replicate"].iat[i])))
    return out.iloc[order].reset_index(drop=True)


# ----------------------------------------------------------------------------------------
# Reference values (paper numbers, read from a data file)
# ----------------------------------------------------------------------------------------

REFERENCE_KEYS = ("study", "population", "dataset", "system", "quantity", "factor", "format", "budget", "part")


def read_reference(path) -> pd.DataFrame:
    """The reference-values TSV (columns: REFERENCE_KEYS, value, lower, upper, source);
    ``*`` in a key column matches anything; empty lower/upper = not published."""
    ref = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, comment="#")
    missing = [c for c in REFERENCE_KEYS + ("value", "lower", "upper") if c not in ref.columns]
    if missing:
        raise InputError(path, 1, missing[0], "reference file lacks this column")
    for col in ("value", "lower", "upper"):
        ref[col] = pd.to_numeric(ref[col].replace("", np.nan))
    return ref


def attach_reference(frame: pd.DataFrame, ref: pd.DataFrame | None, value_cols=("reference", "reference_lower",
                                                                                 "reference_upper")) -> pd.DataFrame:
    """Add reference value/lower/upper columns to rows that match a reference row on every key
    present in ``frame`` (missing key columns count as ''). Only replicate-averaged rows
    (``replicate`` -1 or absent) are matched."""
    out = frame.copy()
    for c in value_cols:
        out[c] = np.nan
    if ref is None or out.empty:
        return out
    rep_ok = out["replicate"] == -1 if "replicate" in out.columns else pd.Series(True, index=out.index)
    for _, row in ref.iterrows():
        m = rep_ok.copy()
        for key in REFERENCE_KEYS:
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


# ----------------------------------------------------------------------------------------
# Panels <-> long count tables (CLUSTER_COUNTS)
# ----------------------------------------------------------------------------------------

def panel_to_frame(panel: CountPanel, *, study: str, population: str, parser: str) -> pd.DataFrame:
    """Long CLUSTER_COUNTS rows of a panel (units x replicates x statistics)."""
    K, R, F, A, U, B, V = panel.num.shape
    parts = []
    grid = np.array(np.meshgrid(np.arange(F), np.arange(A), np.arange(U), np.arange(B), np.arange(V),
                                indexing="ij")).reshape(5, -1)
    n_num = grid.shape[1]
    dgrid = np.array(np.meshgrid(np.arange(F), np.arange(A), np.arange(U), indexing="ij")).reshape(3, -1)
    n_den = dgrid.shape[1]
    unit = np.repeat(np.arange(K), R * (n_num + n_den))
    rep = np.tile(np.repeat(np.arange(R), n_num + n_den), K)
    stat = np.tile(np.arange(n_num + n_den), K * R)
    values = np.concatenate([panel.num.reshape(K, R, n_num), panel.den.reshape(K, R, n_den)], axis=2).ravel()
    is_num = stat < n_num
    si = np.where(is_num, stat, 0)
    di = np.where(is_num, 0, stat - n_num)
    fmt = np.where(is_num, grid[0][si], dgrid[0][di])
    asrc = np.where(is_num, grid[1][si], dgrid[1][di])
    abud = np.where(is_num, grid[2][si], dgrid[2][di])
    lab = lambda levels, codes: np.asarray(levels, dtype=object)[codes]
    frame = pd.DataFrame({
        "study": study, "population": population, "dataset": panel.dataset, "system": panel.system,
        "parser": parser, "metric": panel.metric,
        "cluster_id": pd.Categorical.from_codes(unit, categories=panel.units),
        "replicate": np.asarray(panel.replicates, dtype=np.int64)[rep],
        "kind": np.where(is_num, "C", "D"),
        "format": lab(panel.formats, fmt), "answer_source": lab(panel.sources, asrc),
        "answer_budget": lab(panel.answer_budgets, abud),
        "evidence_source": np.where(is_num, lab(panel.sources, grid[3][si]), ""),
        "evidence_budget": np.where(is_num, lab(panel.evidence_budgets, grid[4][si]), ""),
        "value": values.astype(np.int64),
    })
    parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def panel_from_frame(frame: pd.DataFrame, *, formats, sources, answer_budgets, evidence_budgets, replicates,
                     path: str = "counts") -> CountPanel:
    """Rebuild one panel from its CLUSTER_COUNTS rows (one dataset x system x population)."""
    if frame.empty:
        raise InputError(path, None, "dataset", "no count rows for this panel")
    for col in ("dataset", "system", "metric"):
        if frame[col].nunique() != 1:
            raise InputError(path, None, col, "count rows of several panels passed as one")
    units = sort_claims(frame["cluster_id"].astype(str))
    upos = {c: i for i, c in enumerate(units)}
    K, R, F, A, U, B, V = (len(units), len(replicates), len(formats), len(sources), len(answer_budgets),
                           len(sources), len(evidence_budgets))
    num = np.zeros((K, R, F, A, U, B, V), dtype=np.int64)
    den = np.zeros((K, R, F, A, U), dtype=np.int64)
    sub = frame[frame["replicate"].isin(replicates)]
    k = sub["cluster_id"].astype(str).map(upos).to_numpy(dtype=np.int64)
    r = _codes(sub["replicate"], list(replicates), path, "replicate")
    is_c = (sub["kind"] == "C").to_numpy()
    f = _codes(sub["format"], formats, path, "format")
    a = _codes(sub["answer_source"], sources, path, "answer_source")
    u = _codes(sub["answer_budget"], answer_budgets, path, "answer_budget")
    val = sub["value"].to_numpy(dtype=np.int64)
    cs = sub[is_c]
    b = _codes(cs["evidence_source"], sources, path, "evidence_source")
    v = _codes(cs["evidence_budget"], evidence_budgets, path, "evidence_budget")
    num[k[is_c], r[is_c], f[is_c], a[is_c], u[is_c], b, v] = val[is_c]
    den[k[~is_c], r[~is_c], f[~is_c], a[~is_c], u[~is_c]] = val[~is_c]
    return CountPanel(str(frame["dataset"].iat[0]), str(frame["system"].iat[0]), str(frame["metric"].iat[0]),
                      units, list(replicates), list(formats), list(sources), list(answer_budgets),
                      list(evidence_budgets), num, den)


# ----------------------------------------------------------------------------------------
# Study-level estimate tables
# ----------------------------------------------------------------------------------------

def _row(study, population, dataset, system, parser, quantity, value, *, factor="", fmt="", budget="", part="",
         replicate=-1) -> dict:
    return {"study": study, "population": population, "dataset": dataset, "system": system, "parser": parser,
            "quantity": quantity, "factor": factor, "format": fmt, "budget": budget, "part": part,
            "replicate": int(replicate), "value": float(value)}


def study1_estimates(answers: pd.DataFrame, evidence: pd.DataFrame, relevant: pd.DataFrame, *, dataset: str,
                     system: str, parser: str, sources: Sequence[str], budget: str, replicates: Sequence[int],
                     fmt: str = "verifier", paths: Mapping[str, str] | None = None,
                     unresolved_flags: pd.DataFrame | None = None) -> dict:
    """Study 1 point estimates (ESTIMATES rows), claim panels of both populations and coverage.

    Populations: ``all`` (every RELEVANT claim) and ``resolved`` (no unresolved unit under
    either source). The unresolved flag comes from ``unresolved_flags`` (the verifier's
    per-claim table: ``claim_id``, ``any_unresolved``; every population claim needs a row)
    when given, else from ``unresolved > 0`` in EVIDENCE_INDICATORS for either source.
    Returns ``{"estimates", "panels": {population: panel}, "coverage"}``."""
    panel = build_claim_panel(answers, evidence, relevant, dataset=dataset, system=system, parser=parser,
                              formats=[fmt], sources=sources, answer_budgets=[budget], evidence_budgets=[budget],
                              replicates=replicates, paths=paths)
    ind = claim_indicators(answers, evidence, panel, parser=parser, paths=paths)
    if unresolved_flags is not None:
        flags = unresolved_flags[unresolved_flags["dataset"] == dataset]
        _check_unique(flags, ["claim_id"], (paths or {}).get("unresolved", "unresolved"))
        flag = flags.set_index("claim_id")["any_unresolved"].reindex(panel.units)
        if flag.isna().any():
            raise InputError((paths or {}).get("unresolved", "unresolved"), None, "claim_id",
                             f"{int(flag.isna().sum())} population claims have no unresolved flag; "
                             f"first: {flag.index[flag.isna()][0]!r}")
        ind.unresolved = flag.to_numpy(dtype=bool)
    resolved = panel.subset(~ind.unresolved)
    resolved.coverage = dict(panel.coverage, population_claims=len(resolved.units),
                             claims_with_unresolved=int(ind.unresolved.sum()))
    rows = []
    q = cell_quantities(0, 0)
    for population, p in (("all", panel), ("resolved", resolved)):
        for name in STUDY1_QUANTITIES:
            rows.append(_row("study1", population, dataset, system, parser, name,
                             evaluate_exact(p, q[name], replicates), fmt=fmt, budget=budget))
            for rep in replicates:
                rows.append(_row("study1", population, dataset, system, parser, name,
                                 evaluate_exact(p, q[name], [rep]), fmt=fmt, budget=budget, replicate=rep))
    classes = sort_claims(relevant.loc[relevant["dataset"] == dataset, "gold_label"])
    gold_by_claim = relevant[relevant["dataset"] == dataset].set_index("claim_id")["gold_label"].reindex(panel.units)
    for label in classes:
        cls = (gold_by_claim == label).to_numpy()
        mask = np.broadcast_to(cls[:, None, None, None], (len(panel.units), len(replicates), 1, 1))
        for name in ("gain", "E0", "A1", "A0", "E1"):
            rows.append(_row("study1", "all", dataset, system, parser, name,
                             evaluate_exact(panel, q[name], replicates, mask=mask), fmt=fmt, budget=budget,
                             part=label))
    for j in range(2):
        rows.append(_row("study1", "all", dataset, system, parser, f"accuracy_{j}", answer_accuracy(ind, j),
                         fmt=fmt, budget=budget))
        rows.append(_row("study1", "all", dataset, system, parser, f"macro_f1_{j}",
                         answer_macro_f1(ind, j, classes), fmt=fmt, budget=budget))
        rows.append(_row("study1", "all", dataset, system, parser, f"eligibility_{j}", eligibility_rate(ind, j),
                         fmt=fmt, budget=budget))
        for term, value in eq4_terms(ind, j).items():
            rows.append(_row("study1", "all", dataset, system, parser, f"eq4_{term}_{j}", value, fmt=fmt,
                             budget=budget))
    for name, a, b in (("accuracy_diff", "accuracy_1", "accuracy_0"), ("macro_f1_diff", "macro_f1_1", "macro_f1_0"),
                       ("eligibility_diff", "eligibility_1", "eligibility_0")):
        va = next(r["value"] for r in rows if r["quantity"] == a)
        vb = next(r["value"] for r in rows if r["quantity"] == b)
        rows.append(_row("study1", "all", dataset, system, parser, name, va - vb, fmt=fmt, budget=budget))
    coverage = [{"study": "study1", "population": pop, "dataset": dataset, "system": system, "parser": parser,
                 "item": k, "count": int(v)} for pop, p in (("all", panel), ("resolved", resolved))
                for k, v in p.coverage.items()]
    return {"estimates": pd.DataFrame(rows), "panels": {"all": panel, "resolved": resolved},
            "coverage": pd.DataFrame(coverage)}


def study2_panel_estimates(panel: CountPanel, answers: pd.DataFrame, *, parser: str, seeds: Sequence[int],
                           greedy: int | None) -> pd.DataFrame:
    """Study 2 point estimates of one claim panel (ESTIMATES rows).

    Replicate -1 = mean over ``seeds``; also each seed and the greedy replicate (descriptive).
    Cell quantities per format x budget; factor effects (format, context) on E0, E1, Ebar,
    S00, S11, source_gain; crossed-budget F(u, v) and the two-order split; partitions of E0
    and E1 by identical valid answers (full denominators)."""
    F, U = len(panel.formats), len(panel.answer_budgets)
    reps = [(-1, list(seeds))] + [(s, [s]) for s in seeds] + ([(greedy, [greedy])] if greedy is not None else [])
    rows = []
    base = dict(study="study2", population="all", dataset=panel.dataset, system=panel.system, parser=parser)

    def add(quantity, contrast, rep_label, rep_list, mask=None, **kw):
        rows.append(_row(quantity=quantity, value=evaluate_exact(panel, contrast, rep_list, mask=mask),
                         replicate=rep_label, **base, **kw))

    for rep_label, rep_list in reps:
        for f in range(F):
            for u in range(U):
                q = cell_quantities(f, u)
                for name in CELL_QUANTITIES:
                    add(name, q[name], rep_label, rep_list, fmt=panel.formats[f], budget=panel.answer_budgets[u])
        for name in PRIMARY_QUANTITIES + EXPLORATORY_QUANTITIES:
            for factor in ("format", "context"):
                add(name, factor_effect(name, factor, F, U), rep_label, rep_list, factor=factor)
        if U == 2 and len(panel.evidence_budgets) == 2:
            for u in range(2):
                for v in range(2):
                    add("F", crossed_gain(u, v, F), rep_label, rep_list,
                        budget=f"{panel.answer_budgets[u]}|{panel.evidence_budgets[v]}")
            for name, contrast in crossed_components(F).items():
                add(f"crossed.{name}", contrast, rep_label, rep_list, factor="context")
    same = identical_answer_mask(answers, panel, parser=parser)
    for rep_label, rep_list in reps[:1] + reps[len(seeds) + 1:]:
        for f in range(F):
            for u in range(U):
                q = cell_quantities(f, u)
                for name in ("E0", "E1"):
                    for part, mask in (("identical", same), ("different", ~same)):
                        add(name, q[name], rep_label, rep_list, mask=mask, fmt=panel.formats[f],
                            budget=panel.answer_budgets[u], part=part)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------
# Rule entry points (scripts/study1_accounting.py, scripts/study2_accounting.py)
# ----------------------------------------------------------------------------------------

def write_tsv(frame: pd.DataFrame, path) -> None:
    """A deterministic TSV summary (10 significant digits, no index)."""
    from pathlib import Path

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, sep="\t", index=False, float_format="%.10g", na_rep="")


def _sort_estimates(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["study", "population", "dataset", "system", "parser", "quantity", "factor", "format",
                              "budget", "part", "replicate"], kind="stable").reset_index(drop=True)


def run_study1_accounting(*, answers_path, evidence_path, relevant_path, reference_path, params: Mapping,
                          outputs: Mapping, unresolved_path=None, log=None) -> None:
    """Study 1: estimates (+TSV), per-claim counts of both populations, coverage.
    ``unresolved_path``: the verifier's per-claim UNRESOLVED_FLAGS (optional)."""
    from . import tables
    from .tables.accounting import CLUSTER_COUNTS, COVERAGE, ESTIMATES
    from .tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT

    answers = tables.read_frame(answers_path, ANSWER_INDICATORS)
    evidence = tables.read_frame(evidence_path, EVIDENCE_INDICATORS)
    relevant = tables.read_frame(relevant_path, RELEVANT)
    paths = {"answers": str(answers_path), "evidence": str(evidence_path), "relevant": str(relevant_path),
             "unresolved": str(unresolved_path)}
    flags = None
    if unresolved_path:
        from .tables.verifier import UNRESOLVED_FLAGS

        flags = tables.read_frame(unresolved_path, UNRESOLVED_FLAGS, columns=["dataset", "claim_id", "any_unresolved"])
    res = study1_estimates(answers, evidence, relevant, dataset=params["dataset"], system=params["system"],
                           parser=params["parser"], sources=params["sources"], budget=params["budget"],
                           replicates=params["checkpoints"], fmt=params["format"], paths=paths,
                           unresolved_flags=flags)
    ref = read_reference(reference_path) if reference_path else None
    est = _sort_estimates(attach_reference(res["estimates"], ref))
    tables.write_table(est, outputs["estimates"], ESTIMATES)
    per_checkpoint = (est["replicate"] > 0) & est["quantity"].isin(["T00", "T11", "gain"])
    write_tsv(est[(est["replicate"] == -1) | per_checkpoint].drop(columns=["study"]), outputs["summary"])
    counts = pd.concat([panel_to_frame(p, study="study1", population=pop, parser=params["parser"])
                        for pop, p in res["panels"].items()], ignore_index=True)
    tables.write_table(counts, outputs["counts"], CLUSTER_COUNTS)
    tables.write_table(res["coverage"], outputs["coverage"], COVERAGE)
    if log:
        log.info("study1: %d claims (%d resolved), %d estimate rows", len(res["panels"]["all"].units),
                 len(res["panels"]["resolved"].units), len(est))


def run_study2_accounting(*, answers_paths: Sequence, evidence_paths: Sequence, relevant_paths: Sequence,
                          families_paths: Sequence, reference_path, params: Mapping, outputs: Mapping,
                          log=None) -> None:
    """Study 2: estimates for every dataset x model panel and parser, family count arrays of
    the primary parser, invalid rates, (1,0,1,0)/(0,1,0,1) traces, coverage.

    ``answers_paths`` is ordered dataset-major (for dataset in datasets: for model in models);
    the other path lists follow ``params['datasets']``."""
    from . import tables
    from .tables.accounting import (CLUSTER_COUNTS, COVERAGE, ESTIMATES, INVALID_RATES, PATTERN_TRACES)
    from .tables.sampling import FAMILIES
    from .tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT

    datasets, models = list(params["datasets"]), list(params["models"])
    sources, budgets, formats = params["sources"], params["budgets"], params["formats"]
    seeds, greedy = list(params["seed_replicates"]), params.get("greedy_replicate")
    replicates = ([greedy] if greedy is not None else []) + seeds
    parser = params["parser"]
    ref = read_reference(reference_path) if reference_path else None
    est_parts, count_parts, cov_rows, inv_parts, trace_parts = [], [], [], [], []
    for d_i, dataset in enumerate(datasets):
        evidence = tables.read_frame(evidence_paths[d_i], EVIDENCE_INDICATORS)
        relevant = tables.read_frame(relevant_paths[d_i], RELEVANT)
        families = tables.read_frame(families_paths[d_i], FAMILIES)
        for m_i, model in enumerate(models):
            apath = answers_paths[d_i * len(models) + m_i]
            answers = tables.read_frame(apath, ANSWER_INDICATORS)
            paths = {"answers": str(apath), "evidence": str(evidence_paths[d_i]),
                     "relevant": str(relevant_paths[d_i])}
            for p in [parser] + [x for x in params.get("sensitivity_parsers", []) if x != parser]:
                if not (answers["parser"] == p).any():
                    cov_rows.append({"study": "study2", "population": "all", "dataset": dataset, "system": model,
                                     "parser": p, "item": "parser_absent", "count": 0})
                    if log:
                        log.warning("%s: no answer rows with parser %r; its estimates are skipped", apath, p)
                    continue
                panel = build_claim_panel(answers, evidence, relevant, dataset=dataset, system=model, parser=p,
                                          formats=formats, sources=sources, answer_budgets=budgets,
                                          evidence_budgets=budgets, replicates=replicates, paths=paths)
                est_parts.append(study2_panel_estimates(panel, answers, parser=p, seeds=seeds, greedy=greedy))
                inv = invalid_rates(answers, dataset=dataset, system=model, parser=p, formats=formats,
                                    sources=sources, budgets=budgets)
                inv_parts.append(inv)
                if p == parser:
                    fam_panel = aggregate_to_families(panel, families, path=str(families_paths[d_i]))
                    seed_panel = CountPanel(fam_panel.dataset, fam_panel.system, fam_panel.metric, fam_panel.units,
                                            seeds, fam_panel.formats, fam_panel.sources, fam_panel.answer_budgets,
                                            fam_panel.evidence_budgets,
                                            fam_panel.num[:, fam_panel.replicate_index(seeds)],
                                            fam_panel.den[:, fam_panel.replicate_index(seeds)])
                    count_parts.append(panel_to_frame(seed_panel, study="study2", population="all", parser=p))
                    trace_parts.append(pattern_traces(answers, evidence, dataset=dataset, system=model, parser=p,
                                                      formats=formats, sources=sources, budgets=budgets))
                    cov = fam_panel.coverage
                else:
                    cov = panel.coverage
                cov_rows += [{"study": "study2", "population": "all", "dataset": dataset, "system": model,
                              "parser": p, "item": k, "count": int(v)} for k, v in cov.items()]
                if log:
                    log.info("study2 %s/%s parser=%s: %d claims, coverage %s", dataset, model, p, len(panel.units),
                             cov)
    est = _sort_estimates(attach_reference(pd.concat(est_parts, ignore_index=True), ref))
    tables.write_table(est, outputs["estimates"], ESTIMATES)
    main = est[est["parser"] == parser]
    write_tsv(main[(main["factor"] != "") & (main["replicate"].isin([-1, greedy if greedy is not None else -1]))
                   & ~main["quantity"].str.startswith("crossed.")].drop(columns=["study", "population"]),
              outputs["contrasts"])
    write_tsv(main[(main["factor"] == "") & (main["part"] == "") & (main["replicate"] == -1)
                   & (main["quantity"] != "F")].drop(columns=["study", "population", "factor", "part"]),
              outputs["cells"])
    write_tsv(main[main["part"] != ""].drop(columns=["study", "population", "factor"]), outputs["partition"])
    write_tsv(main[(main["quantity"] == "F") | main["quantity"].str.startswith("crossed.")]
              .drop(columns=["study", "population", "format", "part"]), outputs["crossed"])
    inv = pd.concat(inv_parts, ignore_index=True)
    inv = attach_reference(inv.assign(study="study2", population="all", quantity="invalid_rate", factor="",
                                      budget="", part=""), ref, value_cols=("reference",))
    inv = inv[list(INVALID_RATES.columns)]
    tables.write_table(inv, outputs["invalid_rates"], INVALID_RATES)
    write_tsv(inv, outputs["invalid_rates_tsv"])
    tables.write_table(pd.concat(count_parts, ignore_index=True), outputs["counts"], CLUSTER_COUNTS)
    tables.write_table(pd.DataFrame(cov_rows), outputs["coverage"], COVERAGE)
    traces = pd.concat(trace_parts, ignore_index=True) if trace_parts else PATTERN_TRACES.empty().to_pandas()
    tables.write_table(traces, outputs["traces"], PATTERN_TRACES)
    write_tsv(pattern_examples(traces, greedy), outputs["examples"])


def pattern_examples(traces: pd.DataFrame, greedy: int | None) -> pd.DataFrame:
    """Lowest-id example per dataset x system x pattern: among the greedy observations when
    there are any (else all), the smallest claim id; the conditions where it shows the
    pattern are listed."""
    rows = []
    for (dataset, system, pattern), sub in traces.groupby(["dataset", "system", "pattern"], sort=True):
        pool = sub[sub["replicate"] == greedy] if greedy is not None and (sub["replicate"] == greedy).any() else sub
        first = sort_claims(pool["claim_id"])[0]
        hit = pool[pool["claim_id"] == first]
        conditions = ";".join(f"{r.format}/{r.budget}/rep{r.replicate}/doc{r.doc_id}" if r.doc_id else
                              f"{r.format}/{r.budget}/rep{r.replicate}" for r in hit.itertuples())
        rows.append({"dataset": dataset, "system": system, "pattern": pattern, "claim_id": first,
                     "gold_label": hit["gold_label"].iat[0], "predicted_0": hit["predicted_0"].iat[0],
                     "predicted_1": hit["predicted_1"].iat[0], "n_claims_with_pattern": int(sub["claim_id"].nunique()),
                     "conditions": conditions})
    return pd.DataFrame(rows, columns=["dataset", "system", "pattern", "claim_id", "gold_label", "predicted_0",
                                       "predicted_1", "n_claims_with_pattern", "conditions"])
