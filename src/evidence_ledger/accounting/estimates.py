"""Point estimates from count panels, in exact rational arithmetic.

In:  :class:`~.panel.CountPanel` objects, contrasts from ``estimands``, and for Study 1 the
     per-claim indicators (``panel.claim_indicators``).
Out: exact ``Fraction`` scores (:func:`evaluate_exact`) and ESTIMATES rows (``tables.accounting``):
     Study 1 cell quantities of both populations (all, resolved), per-class parts,
     accuracy / macro-F1 / eligibility and the Eq. 4 decomposition; Study 2 cell quantities,
     factor effects, crossed-budget components and identical/different-answer partitions.
     Scores are converted to float (points) only in the rows.

Scores of several replicates (checkpoints, sampled seeds) are averaged per replicate (each
replicate's corpus metric, then the mean).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import InputError
from .estimands import (CELL_QUANTITIES, EXPLORATORY_QUANTITIES, PRIMARY_QUANTITIES, STUDY1_QUANTITIES, Cell,
                        Contrast, cell_quantities, crossed_components, crossed_gain, factor_effect)
from .panel import (ClaimIndicators, CountPanel, build_claim_panel, check_unique_keys, claim_indicators,
                    identical_answer_mask, sort_claims)

# Which unresolved ids exclude a claim from the Study 1 ``resolved`` population: those inside a
# source's verifier input window (the paper's "unresolved input unit"), or anywhere in its list.
UNRESOLVED_SCOPES = ("window", "list")


def exact_score(num_tot: np.ndarray, den_tot: np.ndarray, multiplier: int, r: int, cell: Cell) -> Fraction:
    """Score of one cell for replicate index ``r`` in points, exactly: of the integer totals, or
    of a float total (continuous numerators) taken at its exact binary value."""
    f, a, u, b, v = cell
    d = int(den_tot[r, f, a, u])
    if d == 0:
        raise ZeroDivisionError(f"zero denominator for replicate {r}, cell {cell}")
    return Fraction(100 * multiplier) * Fraction(num_tot[r, f, a, u, b, v].item()) / d


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
    """Claims whose source-``b`` evidence is eligible, in points, averaged over replicates."""
    return float(100 * ind.eligible[:, :, b].mean())


def evidence_is_shared(ind: ClaimIndicators) -> bool:
    """True when every replicate cites the same evidence (one provider list per source, as in
    the pipeline's Study 1), so ``eligible`` does not depend on the replicate."""
    return bool((ind.eligible == ind.eligible[:, :1, :]).all())


def eq4_terms(ind: ClaimIndicators, a: int) -> dict[str, float]:
    """Eq. 4: ``E_a = mean(c_a) * mean(dE) + cov(c_a, dE)`` in points, where ``c_a`` is the
    replicate-averaged correctness of source-``a`` answers, ``dE = eligible_1 - eligible_0``
    and cov is the population covariance (divide by N).

    When the replicates cite different evidence (runs of an outside system), ``dE`` differs per
    replicate: every term is then computed per replicate and averaged over replicates, which
    still sums to ``E_a`` and equals the form above when the evidence is shared (the
    covariance is linear in ``c_a``)."""
    shared = evidence_is_shared(ind)
    groups = [(ind.correct[:, :, a].mean(axis=1), ind.eligible[:, 0, :])] if shared else \
        [(ind.correct[:, r, a].astype(np.float64), ind.eligible[:, r, :]) for r in range(ind.correct.shape[1])]
    terms = {"accuracy": [], "eligibility_diff": [], "product": [], "covariance": [], "sum": [], "direct": []}
    for c, eligible in groups:
        dE = (eligible[:, 1] - eligible[:, 0]).astype(np.float64)
        mc, md = c.mean(), dE.mean()
        cov = float(np.mean((c - mc) * (dE - md)))
        for name, value in (("accuracy", 100 * mc), ("eligibility_diff", 100 * md), ("product", 100 * mc * md),
                            ("covariance", 100 * cov), ("sum", 100 * (mc * md + cov)),
                            ("direct", 100 * np.mean(c * dE))):
            terms[name].append(float(value))
    return {name: values[0] if shared else float(np.mean(values)) for name, values in terms.items()}


def estimate_row(study, population, dataset, system, parser, quantity, value, *, factor="", fmt="", budget="", part="",
         replicate=-1) -> dict:
    return {"study": study, "population": population, "dataset": dataset, "system": system, "parser": parser,
            "quantity": quantity, "factor": factor, "format": fmt, "budget": budget, "part": part,
            "replicate": int(replicate), "value": float(value)}


def study1_estimates(answers: pd.DataFrame, evidence: pd.DataFrame, relevant: pd.DataFrame, *, dataset: str,
                     system: str, parser: str, sources: Sequence[str], budget: str, replicates: Sequence[int],
                     fmt: str = "verifier", paths: Mapping[str, str] | None = None,
                     unresolved_scope: str, unresolved_flags: pd.DataFrame | None = None) -> dict:
    """Study 1 point estimates (ESTIMATES rows), claim panels of both populations and coverage.

    Populations: ``all`` (every RELEVANT claim) and ``resolved`` (no unresolved unit under
    either source). The unresolved flag comes from ``unresolved_flags`` (the verifier's
    per-claim table: ``claim_id``, ``any_unresolved`` = an unresolved id inside some source's
    verifier input window, and optionally ``any_unresolved_in_list`` = in some source's whole
    submitted list; every population claim needs a row) when given: ``unresolved_scope``
    ``window`` uses the first, ``list`` the second; both counts go to the coverage
    (``claims_with_unresolved_in_window`` / ``_in_list``). Without flags the flag is
    ``unresolved > 0`` in EVIDENCE_INDICATORS for either source (the whole-list count).
    Returns ``{"estimates", "panels": {population: panel}, "coverage"}``."""
    if unresolved_scope not in UNRESOLVED_SCOPES:
        raise ValueError(f"unresolved_scope must be one of {UNRESOLVED_SCOPES}, got {unresolved_scope!r}")
    panel = build_claim_panel(answers, evidence, relevant, dataset=dataset, system=system, parser=parser,
                              formats=[fmt], sources=sources, answer_budgets=[budget], evidence_budgets=[budget],
                              replicates=replicates, paths=paths)
    ind = claim_indicators(answers, evidence, panel, parser=parser, paths=paths)
    scope_counts = {}
    if unresolved_flags is not None:
        flags = unresolved_flags[unresolved_flags["dataset"] == dataset]
        path = (paths or {}).get("unresolved", "unresolved")
        check_unique_keys(flags, ["claim_id"], path)
        by_scope = {}
        for scope, column in (("window", "any_unresolved"), ("list", "any_unresolved_in_list")):
            if column not in flags.columns:
                continue
            flag = flags.set_index("claim_id")[column].reindex(panel.units)
            if flag.isna().any():
                raise InputError(path, None, "claim_id",
                                 f"{int(flag.isna().sum())} population claims have no {column} flag; "
                                 f"first: {flag.index[flag.isna()][0]!r}")
            by_scope[scope] = flag.to_numpy(dtype=bool)
            scope_counts[f"claims_with_unresolved_in_{scope}"] = int(by_scope[scope].sum())
        if unresolved_scope not in by_scope:
            raise InputError(path, None, "any_unresolved_in_list",
                             f"unresolved_scope {unresolved_scope!r} needs a flag column the table lacks")
        ind.unresolved = by_scope[unresolved_scope]
    resolved = panel.subset(~ind.unresolved)
    resolved.coverage = dict(panel.coverage, population_claims=len(resolved.units),
                             claims_with_unresolved=int(ind.unresolved.sum()), **scope_counts)
    classes = sort_claims(relevant.loc[relevant["dataset"] == dataset, "gold_label"])
    gold_by_claim = relevant[relevant["dataset"] == dataset].set_index("claim_id")["gold_label"].reindex(panel.units)
    rows = study1_rows({"all": panel, "resolved": resolved}, ind, gold=gold_by_claim.to_numpy(dtype=object),
                       classes=classes, dataset=dataset, system=system, parser=parser, fmt=fmt, budget=budget,
                       replicates=replicates)
    coverage = [{"study": "study1", "population": pop, "dataset": dataset, "system": system, "parser": parser,
                 "item": k, "count": int(v)} for pop, p in (("all", panel), ("resolved", resolved))
                for k, v in p.coverage.items()]
    return {"estimates": pd.DataFrame(rows), "panels": {"all": panel, "resolved": resolved},
            "coverage": pd.DataFrame(coverage)}


def study1_rows(populations: Mapping[str, CountPanel], ind: ClaimIndicators, *, gold: np.ndarray,
                classes: Sequence[str], dataset: str, system: str, parser: str, fmt: str, budget: str,
                replicates: Sequence[int]) -> list[dict]:
    """The Study 1 ESTIMATES rows of claim panels and their per-claim indicators.

    ``populations``: population name -> claim panel, ``all`` first (the pipeline adds
    ``resolved``; official prediction files have no such population). For each population
    T00..T11 and the components, replicate-averaged (-1) and per replicate; on ``all`` also the
    per-gold-class contributions (``part`` = class, full denominator; ``gold[k]`` the gold label
    of claim ``k``), accuracy / macro-F1 (over ``classes``) / eligibility per source with their
    differences, and the Eq. 4 terms."""
    panel = populations["all"]
    rows = []
    q = cell_quantities(0, 0)
    for population, p in populations.items():
        rows += study1_cell_rows(p, population=population, dataset=dataset, system=system, parser=parser, fmt=fmt,
                                 budget=budget, replicates=replicates)
    for label in classes:
        cls = gold == label
        mask = np.broadcast_to(cls[:, None, None, None], (len(panel.units), len(replicates), 1, 1))
        for name in ("gain", "E0", "A1", "A0", "E1"):
            rows.append(estimate_row("study1", "all", dataset, system, parser, name,
                             evaluate_exact(panel, q[name], replicates, mask=mask), fmt=fmt, budget=budget,
                             part=label))
    for j in range(2):
        rows.append(estimate_row("study1", "all", dataset, system, parser, f"accuracy_{j}", answer_accuracy(ind, j),
                         fmt=fmt, budget=budget))
        rows.append(estimate_row("study1", "all", dataset, system, parser, f"macro_f1_{j}",
                         answer_macro_f1(ind, j, classes), fmt=fmt, budget=budget))
        rows.append(estimate_row("study1", "all", dataset, system, parser, f"eligibility_{j}", eligibility_rate(ind, j),
                         fmt=fmt, budget=budget))
        for term, value in eq4_terms(ind, j).items():
            rows.append(estimate_row("study1", "all", dataset, system, parser, f"eq4_{term}_{j}", value, fmt=fmt,
                             budget=budget))
    for name, a, b in (("accuracy_diff", "accuracy_1", "accuracy_0"), ("macro_f1_diff", "macro_f1_1", "macro_f1_0"),
                       ("eligibility_diff", "eligibility_1", "eligibility_0")):
        va = next(r["value"] for r in rows if r["quantity"] == a)
        vb = next(r["value"] for r in rows if r["quantity"] == b)
        rows.append(estimate_row("study1", "all", dataset, system, parser, name, va - vb, fmt=fmt, budget=budget))
    return rows


def study1_cell_rows(panel: CountPanel, *, population: str = "all", dataset: str, system: str, parser: str,
                     fmt: str, budget: str, replicates: Sequence[int]) -> list[dict]:
    """T00..T11 and the components of one claim panel of any metric, replicate-averaged (-1)
    and per replicate (all a SciFact F1 panel supports: it has no per-claim factorised
    indicators)."""
    q = cell_quantities(0, 0)
    rows = []
    for name in STUDY1_QUANTITIES:
        rows.append(estimate_row("study1", population, dataset, system, parser, name,
                                 evaluate_exact(panel, q[name], replicates), fmt=fmt, budget=budget))
        for rep in replicates:
            rows.append(estimate_row("study1", population, dataset, system, parser, name,
                                     evaluate_exact(panel, q[name], [rep]), fmt=fmt, budget=budget, replicate=rep))
    return rows


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
        rows.append(estimate_row(quantity=quantity, value=evaluate_exact(panel, contrast, rep_list, mask=mask),
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


def sort_estimates(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["study", "population", "dataset", "system", "parser", "quantity", "factor", "format",
                              "budget", "part", "replicate"], kind="stable").reset_index(drop=True)
