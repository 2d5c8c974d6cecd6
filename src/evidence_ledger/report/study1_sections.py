"""The summary page's Study 1 sections: the verifier's cells and components beside the paper's,
Eq. 4, the restricted population, and the decomposition figure's bars.

In:  the Study 1 report TSVs (``sources.SourceTable``: estimates, intervals, unresolved counts).
Out: :class:`~evidence_ledger.report.summary.Section` objects, and the bars of
     :mod:`evidence_ledger.report.decomposition`.
"""
from __future__ import annotations

from .decomposition import Bar
from .study1_rows import EQ4_TERMS, STUDY1_CELLS, STUDY1_COMPONENTS, STUDY1_RATES
from .item_links import estimates_items_links
from .sources import SourceTable, find_row, find_rows, value
from .summary import NOT_RUN, Cell, Figure, Section, Table, cell, interval_cell, paper_cell, pivot_rows


DECOMPOSITION_COMPONENTS = ("gain", "E0", "A1", "A0", "E1")
def study1_bars(estimates: SourceTable | None, intervals: SourceTable | None) -> dict[str, Bar]:
    """The decomposition figure's bars (population ``all``): from the intervals table when
    there is one (estimate, lower, upper, reference), else the estimates (value, reference)."""
    bars = {}
    for name in DECOMPOSITION_COMPONENTS:
        if intervals is not None:
            r = find_row(intervals, population="all", quantity=name)
            if r is not None:
                row = intervals.rows[r]
                bars[name] = Bar(float(row["estimate"]), float(row["lower"]), float(row["upper"]),
                                 float(row["reference"]))
        elif estimates is not None:
            r = find_row(estimates, population="all", quantity=name, part="", replicate="-1")
            if r is not None:
                row = estimates.rows[r]
                bars[name] = Bar(float(row["value"]), paper=float(row["reference"]))
    return bars


def study1_run_and_paper(estimates: SourceTable, intervals: SourceTable | None, population: str,
                         quantity: str) -> tuple[Cell, Cell]:
    """(this run, paper) cells of a Study 1 quantity: from its intervals row (estimate
    [lower, upper]) when the intervals table has one, else from its replicate-averaged
    estimates row."""
    r = find_row(intervals, population=population, quantity=quantity)
    if r is not None:
        return interval_cell(intervals, r, "estimate", "lower", "upper"), paper_cell(intervals, r)
    r = find_row(estimates, population=population, quantity=quantity, part="", replicate="-1")
    return cell(estimates, r, "value", "points"), paper_cell(estimates, r)


def interval_wording(family_size: int, alpha: float) -> str:
    """What a Study 1 interval is, from ``accounting.study1.bootstrap`` (``family_size``,
    ``alpha``): family size 1 gives pointwise ``1 - alpha`` intervals (the paper's Study 1
    calls its component intervals "pointwise 95% summaries"), a larger family
    Bonferroni-adjusted ones (each at ``1 - alpha / family_size``)."""
    if int(family_size) < 1:
        raise ValueError(f"family_size must be at least 1, got {family_size}")
    level = f"{100 * (1 - alpha):g}%"
    if int(family_size) == 1:
        return (f"pointwise {level} intervals (paired claim bootstrap; no multiplicity adjustment, "
                "accounting.study1.bootstrap.family_size 1)")
    return (f"{level} intervals Bonferroni-adjusted over a family of {int(family_size)} (each at "
            f"{100 * (1 - alpha / int(family_size)):g}%; paired claim bootstrap)")


def study1_section(estimates: SourceTable | None, intervals: SourceTable | None,
                   decomposition_png: bytes | None = None, family_size: int = 1, alpha: float = 0.05) -> Section:
    """Study 1 cells T00..T11 (estimates), components gain, E0, A1, A0, E1, interaction with
    their intervals (both populations' gain), accuracy / macro-F1 / eligibility, each beside
    the paper's value, and the decomposition figure. ``family_size`` / ``alpha``: the Study 1
    bootstrap's, for the caption (:func:`interval_wording`)."""
    title = "Study 1: the verifier's cells and components"
    if estimates is None:
        return Section("study1", title, nav="Study 1", absent=NOT_RUN.format("Study 1", "study1"))
    rows = []
    for quantity, meaning in STUDY1_CELLS:
        r = find_row(estimates, population="all", quantity=quantity, part="", replicate="-1")
        rows.append(((quantity,), (meaning,), cell(estimates, r, "value", "points"), paper_cell(estimates, r)))
    for population, label in (("all", ""), ("resolved", " (both-source-resolved claims)")):
        for quantity, meaning in STUDY1_COMPONENTS:
            if population == "resolved" and quantity != "gain":
                continue
            rows.append(((quantity + label,), (meaning,)) + study1_run_and_paper(estimates, intervals, population,
                                                                                  quantity))
    main = Table(("Quantity", "Definition", "This run [interval]", "Paper [interval]"), tuple(rows),
                 (False, False, True, True),
                 caption="Points (score × 100) on the FEVEROUS Study 1 claims, averaged over verifier checkpoints; "
                         "intervals: " + interval_wording(family_size, alpha) + ".")
    rate_rows = tuple(((quantity,), (meaning,)) + study1_run_and_paper(estimates, intervals, "all", quantity)
                      for quantity, meaning in STUDY1_RATES)
    rates = Table(("Quantity", "Definition", "This run", "Paper"), rate_rows, (False, False, True, True),
                  caption="Accuracy, macro-F1 and evidence eligibility (points; with its interval where the Study 1 "
                          "intervals table has one).")
    blocks = (main,) + estimates_items_links(estimates, "study1")
    if decomposition_png is not None:
        blocks += (Figure(decomposition_png, "Study 1 decomposition: gain, E0 + A1, A0 + E1",
                          "The gain split both ways: E0 + A1 and A0 + E1 (bars: this run; black: interval; "
                          "hollow diamond: the paper's value)."),)
    return Section("study1", title, nav="Study 1", blocks=blocks + (rates,),
                   intro="T_ab scores source-a answers with source-b evidence. The gain T11 − T00 splits two ways: "
                         "E0 + A1 (change the evidence first) and A0 + E1 (change the answers first).")


def eq4_section(estimates: SourceTable | None) -> Section:
    """Eq. 4 (E_a = c̄_a ΔĒ + cov(c_a, ΔE)) for both answer sources, beside the paper."""
    title = "Eq. 4: evidence gain = accuracy × eligibility change + covariance"
    if estimates is None:
        return Section("eq4", title, nav="Eq. 4", absent=NOT_RUN.format("Study 1", "study1"))
    rows = []
    for term, meaning in EQ4_TERMS:
        cells = [(term,), (meaning,)]
        for source in ("0", "1"):
            r = find_row(estimates, population="all", quantity=f"eq4_{term}_{source}", part="", replicate="-1")
            cells += [cell(estimates, r, "value", "points"), paper_cell(estimates, r)]
        rows.append(tuple(cells))
    table = Table(("Term", "Meaning", "a = 0: this run", "a = 0: paper", "a = 1: this run", "a = 1: paper"),
                  tuple(rows), (False, False, True, True, True, True),
                  caption="Points; c_a: a claim's checkpoint-averaged correctness with source-a answers; ΔE: its "
                          "eligibility change from source-0 to source-1 evidence.")
    return Section("eq4", title, nav="Eq. 4", blocks=(table,))


def study1_population_section(unresolved: SourceTable | None, intervals: SourceTable | None,
                              unresolved_scope: str) -> Section:
    """Study 1's restricted population: per evidence source the claims with an unresolved id
    (inside the verifier's window and in the whole list) and, for source ``all``, the claims
    and the both-source-resolved claims (``results/study1/unresolved.tsv``), and the number of
    claims each population's gain interval resamples (``n_clusters`` of the intervals table).
    ``unresolved_scope``: ``accounting.study1.unresolved_scope`` (which count is the
    ``resolved`` population)."""
    title = "Study 1: the restricted (both-source-resolved) population"
    if unresolved is None:
        return Section("study1-population", title, nav="Study 1 population", absent=NOT_RUN.format("Study 1", "study1"))
    sources = list(dict.fromkeys(r["source"] for r in unresolved.rows))
    rows = pivot_rows(unresolved, ("dataset", "item"), "source", sources,
                      lambda t, r: cell(t, r, "count", "count"))
    blocks = [Table(("Dataset", "Count") + tuple(sources), rows, (False, False) + (True,) * len(sources),
                    caption=f"Claims per evidence source (from {unresolved.path}); the accounting's resolved "
                            f"population is claims_both_resolved_in_{unresolved_scope} "
                            f"(accounting.study1.unresolved_scope: {unresolved_scope}). The paper reports its "
                            "counts in the text of Study 1 only (no row of the reference-values file).")]
    if intervals is not None:
        pops = [((value(intervals, r, "population", "text"),), (value(intervals, r, "n_clusters", "count"),),
                 interval_cell(intervals, r, "estimate", "lower", "upper"), paper_cell(intervals, r))
                for r in find_rows(intervals, quantity="gain")]
        blocks.append(Table(("Population", "Claims resampled", "Gain [interval]", "Paper [interval]"), tuple(pops),
                            (False, True, True, True),
                            caption=f"The gain of each Study 1 population with the number of claims its "
                                    f"bootstrap resamples (n_clusters; from {intervals.path})."))
    return Section("study1-population", title, nav="Study 1 population", blocks=tuple(blocks))
