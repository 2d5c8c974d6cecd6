"""What is estimated: cells, contrasts, the quantity lists and the comparison families.

In:  cell coordinates (format ``f``, answer source ``a``, answer budget ``u``, evidence
     source ``b``, evidence budget ``v``; sources 0 and 1 are a panel's two sources).
Out: :data:`Contrast` values -- tuples of ``(Fraction coefficient, cell)`` -- for T00..T11,
     the accounting components (gain, E0, A1, A0, E1, interaction, Ebar, ...), factor
     effects, the crossed-budget split, and per comparison family (study1, primary,
     exploratory, crossed) the ``(quantity, factor, contrast)`` list that is bootstrapped,
     and the Bonferroni size of a family (:func:`family_size`).

This is the one place the quantity lists and family definitions live; the family names are
``vocabulary.COMPARISON_FAMILIES``.
"""
from __future__ import annotations

from fractions import Fraction

from ..vocabulary import COMPARISON_FAMILIES


Cell = tuple[int, int, int, int, int]  # (format, answer source, answer budget, evidence source, evidence budget)
Contrast = tuple[tuple[Fraction, Cell], ...]


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


def family_contrasts(family: str, n_formats: int = 2, n_budgets: int = 2) -> list[tuple[str, str, tuple]]:
    """``(quantity, factor, contrast)`` of one comparison family, per panel.

    study1: gain, E0, A1, A0, E1, interaction (one format, one budget);
    primary: format and context effects on E0 (2 per panel, 12 over 3 datasets x 2 models);
    exploratory: the same effects on E1, Ebar, S00, S11, source_gain (10 per panel, 60);
    crossed: the seven crossed-budget components of the context contrast (7 per panel, 42)."""
    if family not in COMPARISON_FAMILIES:
        raise ValueError(f"unknown comparison family {family!r}; expected one of {COMPARISON_FAMILIES}")
    if family == "study1":
        q = cell_quantities(0, 0)
        return [(name, "", q[name]) for name in STUDY1_BOOTSTRAP]
    if family == "primary":
        names = PRIMARY_QUANTITIES
    elif family == "exploratory":
        names = EXPLORATORY_QUANTITIES
    else:  # crossed
        comps = crossed_components(n_formats)
        return [(f"crossed.{name}", "context", comps[name]) for name in CROSSED_COMPONENTS]
    return [(name, factor, factor_effect(name, factor, n_formats, n_budgets))
            for name in names for factor in ("format", "context")]


#: contrasts drawn with a family, at its tail, but not counted in its Bonferroni size
#: (``(quantity, factor)``; factor '' = the cell quantity itself): the paper's Table 7 reports
#: the context effect on E0 beside E1 and Ebar with the exploratory family's draws and adjustment
#: ("What Changes When Fact-Verification Scores Improve?", Study 2); the Study 1 cells T00..T11
#: (each source's own score and the two crossed scores) get intervals from the same claim draws
#: as the components
FAMILY_COMPANIONS = {"exploratory": (("E0", "context"),),
                     "study1": (("T00", ""), ("T01", ""), ("T10", ""), ("T11", ""))}


def companion_contrasts(family: str, n_formats: int = 2, n_budgets: int = 2) -> list[tuple[str, str, tuple]]:
    """``(quantity, factor, contrast)`` drawn with ``family`` outside its comparisons
    (:data:`FAMILY_COMPANIONS`; none for most families)."""
    return [(name, factor, factor_effect(name, factor, n_formats, n_budgets) if factor else cell_quantities(0, 0)[name])
            for name, factor in FAMILY_COMPANIONS.get(family, ())]


def family_size(family: str, n_panels: int, n_formats: int = 2, n_budgets: int = 2) -> int:
    """Bonferroni size of a comparison family: its comparisons per panel
    (:func:`family_contrasts`) times the number of panels (datasets x models)."""
    return len(family_contrasts(family, n_formats, n_budgets)) * int(n_panels)
