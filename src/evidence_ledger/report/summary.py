"""The summary page: the run's headline results on one self-contained HTML page.

In:  report TSVs read by ``sources.read_source_table`` (Study 1 estimates and intervals,
     Study 2 primary and crossed intervals, decision criteria and label, WikiContradict
     rates and detection, DiffGR, provenance; any of them may be absent) and PNG bytes.
Out: :class:`Section` objects (tables of cells, paragraphs, figures) and the page HTML, laid out
     by the Jinja2 templates in ``templates/`` (package data) from the values computed here.

Every number on the page is a :class:`sources.Value`: one cell of one source TSV, shown
rounded and tagged with ``data-src`` / ``data-line`` / ``data-col`` / ``data-text`` (the
cell's exact text) so it can be checked against its file. The paper's values are the
``reference*`` columns of the same rows (joined by the accounting stage from
``accounting.reference_values``); nothing on the page is a number written in code.
"""
from __future__ import annotations

import base64
import functools
import html
from dataclasses import dataclass, field
from typing import Sequence, Union

import jinja2
from markupsafe import Markup

from .decomposition import Bar
from .sources import MISSING_TEXT, SourceTable, Value, find_row, find_rows, is_missing, value

Fragment = Union[Value, str]
Cell = tuple  # of Fragment


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    numeric: tuple[bool, ...]  # per column: right-aligned numbers
    caption: str = ""


@dataclass(frozen=True)
class Paragraph:
    fragments: Cell


@dataclass(frozen=True)
class Figure:
    png: bytes
    alt: str
    caption: str


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    nav: str = ""  # short name in the page's contents line (default: the title)
    intro: str = ""
    blocks: tuple = field(default_factory=tuple)
    absent: str = ""  # why the section has no content in this run

    @property
    def nav_label(self) -> str:
        """The section's name in the page's contents line."""
        return self.nav or self.title


NOT_RUN = "{} is not part of this run (studies.{}: false)."
DECOMPOSITION_COMPONENTS = ("gain", "E0", "A1", "A0", "E1")
STUDY1_CELLS = (
    ("T00", "source-0 answers scored with source-0 evidence"),
    ("T01", "source-0 answers scored with source-1 evidence"),
    ("T10", "source-1 answers scored with source-0 evidence"),
    ("T11", "source-1 answers scored with source-1 evidence"),
)
STUDY1_COMPONENTS = (
    ("gain", "T11 − T00: the whole change"),
    ("E0", "T01 − T00: evidence change, source-0 answers"),
    ("A1", "T11 − T01: answer change, source-1 evidence"),
    ("A0", "T10 − T00: answer change, source-0 evidence"),
    ("E1", "T11 − T10: evidence change, source-1 answers"),
    ("interaction", "E1 − E0"),
)
STUDY1_RATES = (
    ("accuracy_0", "label accuracy, source-0 input"),
    ("accuracy_1", "label accuracy, source-1 input"),
    ("accuracy_diff", "accuracy_1 − accuracy_0"),
    ("macro_f1_0", "macro-F1, source-0 input"),
    ("macro_f1_1", "macro-F1, source-1 input"),
    ("macro_f1_diff", "macro_f1_1 − macro_f1_0"),
    ("eligibility_0", "claims whose source-0 evidence is eligible"),
    ("eligibility_1", "claims whose source-1 evidence is eligible"),
    ("eligibility_diff", "eligibility_1 − eligibility_0"),
)
EQ4_TERMS = (
    ("direct", "E_a computed directly: mean of c_a × ΔE"),
    ("accuracy", "mean correctness c̄_a of source-a answers"),
    ("eligibility_diff", "mean eligibility change ΔĒ (source 1 − source 0)"),
    ("product", "c̄_a × ΔĒ"),
    ("covariance", "cov(c_a, ΔE) over claims"),
    ("sum", "product + covariance (= E_a)"),
)


# --- cells -------------------------------------------------------------------------------


def interval_cell(table: SourceTable, row: int | None, estimate: str, lower: str, upper: str,
                  kind: str = "points") -> Cell:
    """``estimate [lower, upper]`` of one row (bounds left out when both are missing); ``('–',)``
    when there is no row."""
    if row is None:
        return (MISSING_TEXT,)
    point = value(table, row, estimate, kind)
    lo, hi = value(table, row, lower, kind), value(table, row, upper, kind)
    if is_missing(lo) and is_missing(hi):
        return (point,)
    return (point, " [", lo, ", ", hi, "]")


def paper_cell(table: SourceTable, row: int | None) -> Cell:
    """The paper's value of a row (``reference`` with ``reference_lower`` / ``_upper`` where
    the table has them and the paper gives them); ``('–',)`` when the paper gives none."""
    if row is None or "reference" not in table.columns:
        return (MISSING_TEXT,)
    if {"reference_lower", "reference_upper"} <= set(table.columns):
        lo, hi = value(table, row, "reference_lower", "points"), value(table, row, "reference_upper", "points")
        point = value(table, row, "reference", "points")
        if not (is_missing(lo) and is_missing(hi)):
            return ((MISSING_TEXT,) if is_missing(point) else (point,)) + (" [", lo, ", ", hi, "]")
    point = value(table, row, "reference", "points")
    return (MISSING_TEXT,) if is_missing(point) else (point,)


def cell(table: SourceTable, row: int | None, column: str, kind: str) -> Cell:
    return (MISSING_TEXT,) if row is None else (value(table, row, column, kind),)


# --- sections ----------------------------------------------------------------------------


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


def run_kind_paragraph(provenance: SourceTable | None) -> Paragraph | None:
    """``Run kind: <kind> (<why>).`` from the provenance table's ``run`` rows ``kind`` and
    ``kind_reason``; None without a provenance table or a kind row."""
    kind = find_row(provenance, section="run", key="kind")
    if kind is None:
        return None
    reason = find_row(provenance, section="run", key="kind_reason")
    why = () if reason is None else (" (", value(provenance, reason, "value", "text"), ")")
    return Paragraph(("Run kind: ", value(provenance, kind, "value", "text")) + why + (".",))


def headline_section(s1_intervals: SourceTable | None, label: SourceTable | None,
                     provenance: SourceTable | None = None) -> Section:
    """At a glance: the run kind (demo, rehearsal or paper; :func:`run_kind_paragraph`), the
    Study 1 gain with its interval beside the paper's, and the recorded Study 2 label beside
    the paper's (whichever of the two studies ran)."""
    kind = run_kind_paragraph(provenance)
    blocks = [] if kind is None else [kind]
    r = find_row(s1_intervals, population="all", quantity="gain")
    if r is not None:
        blocks.append(Paragraph(("Study 1 gain T11 − T00: ",) + interval_cell(s1_intervals, r, "estimate", "lower",
                                                                                "upper")
                                + (" points; paper: ",) + paper_cell(s1_intervals, r) + (".",)))
    if label is not None and label.rows:
        blocks.append(Paragraph(("Study 2 decision: ", value(label, 0, "label", "text"), "; paper: ",
                                 value(label, 0, "reference_label", "text"), ".")))
    numbers = len(blocks) - (kind is not None)
    return Section("headline", "At a glance", blocks=tuple(blocks),
                   absent="" if numbers else "neither Study 1 intervals nor a Study 2 label in this run")


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
    blocks = (main,)
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


def decision_section(label: SourceTable | None, criteria: SourceTable | None, primary: SourceTable | None,
                     forest_png: bytes | None) -> Section:
    """The recorded Study 2 label beside the paper's, its reason, the criteria table (each
    primary contrast with its interval and the paper's value) and Figure 1."""
    title = "Study 2: decision label and criteria"
    if label is None:
        return Section("study2", title, nav="Study 2 decision", absent=NOT_RUN.format("Study 2", "study2"))
    blocks = []
    for i in range(len(label.rows)):
        blocks.append(Paragraph(("Recorded label: ", value(label, i, "label", "text"), ". The paper recorded: ",
                                 value(label, i, "reference_label", "text"), ".")))
        blocks.append(Paragraph(("Reason: ", value(label, i, "reason", "text"), ".")))
    if criteria is not None:
        rows = []
        for i, row in enumerate(criteria.rows):
            p = find_row(primary, dataset=row["dataset"], system=row["system"], factor=row["factor"],
                         quantity="E0")
            rows.append((
                (value(criteria, i, "dataset", "text"),), (value(criteria, i, "system", "text"),),
                (value(criteria, i, "factor", "text"),),
                interval_cell(criteria, i, "estimate", "lower", "upper"),
                (MISSING_TEXT,) if primary is None else paper_cell(primary, p),
                (value(criteria, i, "direction", "count"),),
                (value(criteria, i, "magnitude_ok", "flag"),), (value(criteria, i, "interval_ok", "flag"),),
                (value(criteria, i, "seeds_agreeing", "count"), " of ", value(criteria, i, "n_seeds", "count")),
                (value(criteria, i, "local_ok", "flag"),), (value(criteria, i, "within_bound", "flag"),),
            ))
        blocks.append(Table(
            ("Dataset", "System", "Factor", "Effect on E0 [interval]", "Paper [interval]", "Sign",
             "Magnitude met", "Interval excludes 0", "Seeds agreeing", "All local criteria", "Within bound"),
            tuple(rows), (False, False, False, True, True, True, False, False, True, False, False),
            caption="One row per primary contrast (format or context effect on E0, points, Bonferroni-adjusted "
                    "over the primary family)."))
    if forest_png is not None:
        blocks.append(Figure(forest_png, "Figure 1: forest plot of the primary contrasts",
                             "Figure 1: the primary contrasts with their adjusted intervals; the grey band is the "
                             "stability bound."))
    return Section("study2", title, nav="Study 2 decision", blocks=tuple(blocks))


def crossed_section(crossed: SourceTable | None) -> Section:
    """The crossed-budget components of the context contrast: one row per component (in the
    table's order), one column per dataset x system, each cell the estimate [interval] and,
    below it, the paper's value where it gives one."""
    title = "Study 2: crossed-budget components of the context effect"
    if crossed is None:
        return Section("crossed", title, nav="Crossed budgets", absent=NOT_RUN.format("Study 2", "study2"))
    components = list(dict.fromkeys(r["quantity"] for r in crossed.rows))
    panels = list(dict.fromkeys((r["dataset"], r["system"]) for r in crossed.rows))
    rows = []
    for quantity in components:
        cells = [(quantity.removeprefix("crossed."),)]
        for dataset, system in panels:
            r = find_row(crossed, dataset=dataset, system=system, quantity=quantity)
            run, paper = interval_cell(crossed, r, "estimate", "lower", "upper"), paper_cell(crossed, r)
            cells.append(run if paper == (MISSING_TEXT,) else run + ("\npaper ",) + paper)
        rows.append(tuple(cells))
    header = ("Component",) + tuple(f"{d} / {s}" for d, s in panels)
    table = Table(header, tuple(rows), (False,) + (True,) * len(panels),
                  caption="Points; input_first.input + input_first.scoring = scoring_first.scoring + "
                          "scoring_first.input = context (the context effect on E0, split by which budget changes "
                          "first); intervals Bonferroni-adjusted over the crossed family.")
    return Section("crossed", title, nav="Crossed budgets", blocks=(table,))


def wikicontradict_section(rates: SourceTable | None, detection: SourceTable | None) -> Section:
    """Judged rates per model x template over all conflicts, and the 5.2 detection rate."""
    title = "WikiContradict: judged answer rates"
    if rates is None:
        return Section("wikicontradict", title, nav="WikiContradict",
                       absent=NOT_RUN.format("WikiContradict", "wikicontradict"))
    rows = []
    for i in find_rows(rates, conflict_type="all"):
        rows.append(((value(rates, i, "model", "text"),), (value(rates, i, "template", "text"),),
                     (value(rates, i, "n", "count"),)) + tuple(
            (value(rates, i, c, "rate"),) for c in ("correct_rate", "partial_rate", "incorrect_rate",
                                                    "unparseable_rate")))
    blocks = [Table(("Model", "Template", "Responses", "Correct", "Partially correct", "Incorrect", "Unparseable"),
                    tuple(rows), (False, False, True, True, True, True, True),
                    caption="Shares of all judged responses (explicit and implicit conflicts pooled); the four "
                            "shares sum to 1.")]
    if detection is not None and detection.rows:
        det = [((value(detection, i, "model", "text"),), (value(detection, i, "n", "count"),),
                (value(detection, i, "detection_rate", "rate"),)) for i in find_rows(detection, conflict_type="all")]
        blocks.append(Table(("Model", "Responses", "Conflict detected"), tuple(det), (False, True, True),
                            caption="Template 5.2: share of responses that say the passages conflict."))
    return Section("wikicontradict", title, nav="WikiContradict", blocks=tuple(blocks))


def diffgr_cell(table: SourceTable, row: int) -> Cell:
    """DiffGR [interval] of a row where ``diffgr_defined`` is true; where it is false (the
    official code divides by zero and writes 0.0) ``undefined`` and why: an empty subset
    (``n`` is 0) or no hybrid answer matching either single-context answer."""
    if table.rows[row].get("diffgr_defined", "True") != "False":
        return interval_cell(table, row, "diffgr", "ci_low", "ci_high", kind="rate")
    empty = table.rows[row]["n"] in ("0", "0.0")
    why = "empty subset" if empty else "no hybrid answer matches the generated-only or the retrieved-only answer"
    return ("undefined: " + why + " (diffgr_defined ", value(table, row, "diffgr_defined", "text"), ")")


def diffgr_section(diffgr: SourceTable | None, reader_files: SourceTable | None) -> Section:
    """Per reader x dataset x order x subset: answer shares and DiffGR with its interval; the
    same for scored official reader-output files when present."""
    title = "DiffGR: generated vs retrieved context"
    if diffgr is None and reader_files is None:
        return Section("diffgr", title, nav="DiffGR", absent=NOT_RUN.format("DiffGR", "diffgr"))
    blocks = []
    for table, who in ((diffgr, "model"), (reader_files, "reader_set")):
        if table is None or not table.rows:
            continue
        rows = []
        for i in range(len(table.rows)):
            rows.append(tuple((value(table, i, c, "text"),) for c in (who, "dataset", "order", "subset"))
                        + ((value(table, i, "n", "count"),),)
                        + tuple((value(table, i, c, "rate"),) for c in ("gen_ans", "ir_ans", "neither_rate"))
                        + (diffgr_cell(table, i),))
        blocks.append(Table(("Reader" if who == "model" else "Reader-file set", "Dataset", "Order", "Subset", "n",
                             "Gen-Ans", "IR-Ans", "Neither", "DiffGR [interval]"), tuple(rows),
                            (False, False, False, False, True, True, True, True, True),
                            caption="Shares of hybrid answers matching the generated-only or retrieved-only answer; "
                                    "DiffGR = (Gen − IR) / (Gen + IR) with its percentile bootstrap interval; "
                                    "undefined where Gen + IR is zero (diffgr_defined false in the table)."))
    return Section("diffgr", title, nav="DiffGR", blocks=tuple(blocks))


def pivot_rows(table: SourceTable, keys: Sequence[str], across: str, levels: Sequence[str], cell_of, /,
               **filters: str) -> tuple[tuple[Cell, ...], ...]:
    """One row per distinct ``keys`` combination (in file order) among the rows matching
    ``filters``: the key cells, then ``cell_of(table, row index or None)`` for each level of
    the column ``across``."""
    matching = [table.rows[i] for i in find_rows(table, **filters)]
    rows = []
    for combo in dict.fromkeys(tuple(r[k] for k in keys) for r in matching):
        where = dict(filters, **dict(zip(keys, combo)))
        first = find_rows(table, **where)[0]
        cells = [(value(table, first, k, "text"),) for k in keys]
        cells += [cell_of(table, find_row(table, **where, **{across: level})) for level in levels]
        rows.append(tuple(cells))
    return tuple(rows)


def interval_of(kind: str = "points"):
    """A ``cell_of`` for :func:`pivot_rows`: the row's estimate [lower, upper]."""
    return lambda table, row: interval_cell(table, row, "estimate", "lower", "upper", kind)


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


def endpoints_section(endpoints: SourceTable | None, primary: SourceTable | None,
                      exploratory: SourceTable | None) -> Section:
    """Tables 6 and 7 of the paper's Study 2 (``endpoints.tsv``): Table 6 per dataset x system
    x quantity, one column per budget; Table 7 the context endpoints with their intervals,
    beside the paper's value from the reference columns of the primary / exploratory
    intervals table of the row's family."""
    title = "Study 2: endpoints (Tables 6 and 7)"
    if endpoints is None:
        return Section("endpoints", title, nav="Tables 6, 7", absent=NOT_RUN.format("Study 2", "study2"))
    budgets = list(dict.fromkeys(r["budget"] for r in endpoints.rows if r["table"] == "6"))
    blocks = [Table(("Dataset", "System", "Quantity") + tuple(budgets),
                    pivot_rows(endpoints, ("dataset", "system", "quantity"), "budget", budgets,
                               lambda t, r: cell(t, r, "estimate", "points"), table="6"),
                    (False, False, False) + (True,) * len(budgets),
                    caption=f"Table 6: per budget, seed-averaged points (from {endpoints.path}).")]
    families = {"primary": primary, "exploratory": exploratory}
    rows = []
    for i in find_rows(endpoints, table="7"):
        row = endpoints.rows[i]
        source = families.get(row["family"])
        ref = find_row(source, dataset=row["dataset"], system=row["system"], quantity=row["quantity"],
                       factor=row["factor"])
        rows.append(tuple((value(endpoints, i, c, "text"),) for c in ("dataset", "system", "quantity", "factor",
                                                                      "family"))
                    + (interval_cell(endpoints, i, "estimate", "lower", "upper"),
                       (MISSING_TEXT,) if source is None else paper_cell(source, ref)))
    blocks.append(Table(("Dataset", "System", "Quantity", "Factor", "Family", "This run [interval]",
                         "Paper [interval]"), tuple(rows), (False,) * 5 + (True, True),
                        caption=f"Table 7: context endpoints with the interval of their family (from "
                                f"{endpoints.path}); the paper's values from the reference columns of the "
                                "family's intervals table."))
    return Section("endpoints", title, nav="Tables 6, 7", blocks=tuple(blocks))


CONTROL_QUANTITIES = ("E_none", "E_control", "gain", "agreement")


def controls_section(controls: SourceTable | None, generations: SourceTable | None, parser: str) -> Section:
    """The greedy controls (``controls.tsv``, primary parser): per dataset x system x format x
    control the units, feasibility and E without / with the control, their difference and the
    answer agreement, each with its pointwise interval; and the control generations counted
    (``control_generations.tsv``) beside the paper's count where it gives one."""
    title = "Study 2: greedy controls"
    if controls is None:
        return Section("controls", title, nav="Controls", absent=NOT_RUN.format("Study 2", "study2"))
    keys = ("dataset", "system", "format", "control", "budget")
    rows = pivot_rows(controls, keys, "quantity", CONTROL_QUANTITIES, interval_of(), parser=parser)
    extra = []
    for row in rows:
        r = find_rows(controls, parser=parser, **{k: c[0].text for k, c in zip(keys, row)})[0]
        extra.append(row[:len(keys)] + ((value(controls, r, "units", "count"), " of ",
                                         value(controls, r, "units_total", "count")),
                                        (value(controls, r, "feasibility", "points"),)) + row[len(keys):])
    blocks = [Table(("Dataset", "System", "Format", "Control", "Budget", "Units", "Feasible %") + CONTROL_QUANTITIES,
                    tuple(extra), (False,) * 5 + (True,) * 6,
                    caption=f"Points with pointwise intervals, parser {parser} (from {controls.path}).")]
    if generations is not None:
        gen = tuple(tuple((value(generations, i, c, "text"),) for c in ("system", "dataset", "condition"))
                    + ((value(generations, i, "rows", "count"),), (value(generations, i, "value", "count"),),
                       cell(generations, i, "reference", "count")) for i in range(len(generations.rows)))
        blocks.append(Table(("System", "Dataset", "Condition", "Rows", "Generations", "Paper"), gen,
                            (False, False, False, True, True, True),
                            caption=f"Control generations after reuse of identical requests (from "
                                    f"{generations.path})."))
    return Section("controls", title, nav="Controls", blocks=tuple(blocks))


def answer_accuracy_section(accuracy: SourceTable | None, sources: Sequence[str], parser: str) -> Section:
    """Study 2 answer accuracy (``answer_accuracy.tsv``, primary parser, seed average): per
    dataset x system x format x budget, one column per answer source."""
    title = "Study 2: answer accuracy"
    if accuracy is None:
        return Section("answer-accuracy", title, nav="Answer accuracy", absent=NOT_RUN.format("Study 2", "study2"))
    rows = pivot_rows(accuracy, ("dataset", "system", "format", "budget"), "answer_source", sources, interval_of(),
                      parser=parser, replicate="-1", quantity="answer_accuracy")
    return Section("answer-accuracy", title, nav="Answer accuracy", blocks=(Table(
        ("Dataset", "System", "Format", "Budget") + tuple(f"answers from {s}" for s in sources), rows,
        (False,) * 4 + (True,) * len(sources),
        caption=f"Percent of answers correct (INVALID counts as wrong), parser {parser}, mean of the seeds, "
                f"pointwise intervals (from {accuracy.path})."),))


PARTITION_PARTS = ("identical", "different")


def partition_section(partition: SourceTable | None, parser: str) -> Section:
    """The identical-answer partition (``partition.tsv``, primary parser, seed average): E0 and
    E1 split into the claims whose two sources gave identical valid answers and the rest."""
    title = "Study 2: identical-answer partition of E0 and E1"
    if partition is None:
        return Section("partition", title, nav="Partition", absent=NOT_RUN.format("Study 2", "study2"))
    rows = pivot_rows(partition, ("dataset", "system", "quantity", "format", "budget"), "part", PARTITION_PARTS,
                      lambda t, r: cell(t, r, "value", "points"), parser=parser, replicate="-1")
    return Section("partition", title, nav="Partition", blocks=(Table(
        ("Dataset", "System", "Quantity", "Format", "Budget") + PARTITION_PARTS, rows, (False,) * 5 + (True, True),
        caption=f"Points on the full denominator, so the two parts add up to the quantity; parser {parser}, mean "
                f"of the seeds (from {partition.path})."),))


def invalid_rates_section(rates: SourceTable | None, paper_parser: str) -> Section:
    """Observations with an INVALID response (``invalid_rates.tsv``) per dataset x system x
    parser x format, the paper's rate only beside rows of ``paper_parser`` (the parser the
    paper's rates were counted with; the table's reference join has no parser key)."""
    title = "Study 2: observations with an INVALID response"
    if rates is None:
        return Section("invalid", title, nav="INVALID rates", absent=NOT_RUN.format("Study 2", "study2"))
    rows = []
    for i, row in enumerate(rates.rows):
        rows.append(tuple((value(rates, i, c, "text"),) for c in ("dataset", "system", "parser", "format"))
                    + ((value(rates, i, "n_observations", "count"),), (value(rates, i, "n_with_invalid", "count"),),
                       (value(rates, i, "rate", "points"),),
                       paper_cell(rates, i) if row["parser"] == paper_parser else (MISSING_TEXT,)))
    return Section("invalid", title, nav="INVALID rates", blocks=(Table(
        ("Dataset", "System", "Parser", "Format", "Observations", "With INVALID", "Percent", "Paper"), tuple(rows),
        (False,) * 4 + (True,) * 4,
        caption=f"Percent of claim-condition observations with at least one INVALID response (from {rates.path}); "
                f"the paper's rates are its {paper_parser} parser's, so they sit beside {paper_parser} rows only."),))


RUN_KIND_NOTES = {
    "demo": ("This is the embedded demo run, not a reproduction of the paper: ",
             ". Its numbers test that the pipeline runs end to end; they are not expected to be near the "
             "paper's values, and a difference from them is no failed reproduction."),
    "rehearsal": ("This is the CPU rehearsal of the paper run, not a reproduction of the paper: ",
                  ". Its numbers test the paper run's plan on small data; they are not expected to be near the "
                  "paper's values, and a difference from them is no failed reproduction."),
}


PUBLIC_ROUTE_NOTE = ("This run follows the paper's design on public files only: each input only the study's authors "
                     "hold was replaced by a public substitute, so its numbers are not expected to equal the paper's.")


def substitutes_paragraph(provenance: SourceTable) -> Paragraph | None:
    """The provenance table's ``substitute`` rows as one paragraph, a line per author-held input
    and what ran instead; None when the run has none."""
    rows = [i for i, row in enumerate(provenance.rows) if row["section"] == "substitute"]
    if not rows:
        return None
    fragments: list = ["Author-held inputs and the public substitutes that ran instead:"]
    for i in rows:
        fragments += ["\n", value(provenance, i, "key", "text"), " → ", value(provenance, i, "value", "text"), "."]
    return Paragraph(tuple(fragments))


def run_kind_section(provenance: SourceTable | None) -> Section | None:
    """A banner for the top of the page when the provenance table's ``run kind`` is the demo or
    the rehearsal (why, from ``kind_reason``), or when a paper run replaced author-held inputs by
    public substitutes (``substitute`` rows; listed by :func:`substitutes_section`); None for a
    paper run on the paper's own inputs or without a provenance table. What ran in each model
    slot is in the provenance section (:func:`provenance_section`)."""
    if provenance is None:
        return None
    kind_row = find_row(provenance, section="run", key="kind")
    kind = None if kind_row is None else provenance.rows[kind_row]["value"]
    if kind in RUN_KIND_NOTES:
        lead, tail = RUN_KIND_NOTES[kind]
        reason = find_row(provenance, section="run", key="kind_reason")
        banner = Paragraph((lead,) + ((value(provenance, reason, "value", "text"),) if reason is not None else ())
                           + (tail,))
        return Section("run-kind", f"Not a paper run: the {kind}", nav="Run kind", blocks=(banner,))
    if substitutes_paragraph(provenance) is not None:
        return Section("run-kind", "The paper's design on public files", nav="Run kind",
                       blocks=(Paragraph((PUBLIC_ROUTE_NOTE,)),))
    return None


def substitutes_section(provenance: SourceTable | None) -> Section | None:
    """The public substitutes that ran for author-held inputs (:func:`substitutes_paragraph`),
    right after the headline; None when the run has none."""
    paragraph = None if provenance is None else substitutes_paragraph(provenance)
    if paragraph is None:
        return None
    return Section("substitutes", "Public substitutes for author-held inputs", nav="Substitutes", blocks=(paragraph,))


def provenance_section(provenance: SourceTable | None) -> Section:
    """Departures from the paper (e.g. a quantized judge), what ran in each model slot (a local
    build or directory says which Hub model it stands in for), then config hash, commit (and
    dirty flag), every model id with its revision and the substitutes of author-held inputs."""
    title = "Provenance of this run"
    if provenance is None:
        return Section("provenance", title, nav="Provenance", absent="no provenance table")
    departures = tuple(Paragraph(("Departure from the paper: ", value(provenance, i, "value", "text"), "."))
                       for i, row in enumerate(provenance.rows) if row["section"] == "departure")
    ran = tuple(((value(provenance, i, "key", "text"),), (value(provenance, i, "value", "text"),))
                for i, row in enumerate(provenance.rows) if row["section"] == "ran")
    slots = (Table(("Model slot", "What ran"), ran, (False, False),
                   caption="From the provenance table: what ran in each configured model slot."),) if ran else ()
    rows = [((value(provenance, i, "key", "text"),), (value(provenance, i, "value", "text"),))
            for i, row in enumerate(provenance.rows) if row["section"] in ("run", "model", "substitute")]
    table = Table(("Item", "Value"), tuple(rows), (False, False),
                  caption="From the provenance table (package versions and backend settings are listed there too).")
    return Section("provenance", title, nav="Provenance", blocks=departures + slots + (table,))


def whole_table_section(key: str, title: str, table: SourceTable) -> Section:
    """Any report TSV shown whole: text cells as they are, numbers to 4 significant digits."""
    kinds = {c: "text" if any(_not_number(r[c]) for r in table.rows) else "number" for c in table.columns}
    rows = tuple(tuple((value(table, i, c, kinds[c]),) for c in table.columns) for i in range(len(table.rows)))
    numeric = tuple(kinds[c] == "number" for c in table.columns)
    return Section(key, title, nav=title, blocks=(Table(tuple(table.columns), rows, numeric),))


def _not_number(text: str) -> bool:
    try:
        float(text)
        return False
    except ValueError:
        return True


# --- HTML: templates/summary.html lays out what these compute (Jinja2, autoescaped) ---------


def value_location(v: Value) -> str:
    """Where a value comes from, shown when hovering over it: ``file, line N, column C``."""
    return f"{v.path}, line {v.line}, column {v.column}"


def png_base64_lines(png: bytes) -> str:
    """A PNG's base64 text in lines of 76 characters (``base64.encodebytes``): a browser drops
    the newlines of a URL, and the report's landing text (reStructuredText) refuses lines over
    10,000 characters."""
    return base64.encodebytes(png).decode("ascii").rstrip("\n")


def html_escaped(text):
    """``text`` escaped as ``html.escape`` escapes it (``&#x27;``, ``&quot;``; the page has always
    been written so), where autoescaping alone would write MarkupSafe's ``&#39;``, ``&#34;``: the
    environment's ``finalize``, applied to each ``{{ value }}`` before autoescaping, which then
    leaves the result alone. HTML the templates built (a macro's output) passes unchanged."""
    if isinstance(text, str) and not hasattr(text, "__html__"):
        return Markup(html.escape(text))
    return text


BLOCK_TYPES = (Table, Paragraph, Figure)  # what a section's blocks are; the templates test for each


@functools.cache
def page_template() -> jinja2.Template:
    """``templates/summary.html`` of this package. The templates tell a value from text and one
    block from another with the tests ``value``, ``table``, ``paragraph`` and ``figure``."""
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"), autoescape=True, finalize=html_escaped,
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    environment.tests.update({cls.__name__.lower(): (lambda obj, cls=cls: isinstance(obj, cls))
                              for cls in (Value,) + BLOCK_TYPES})
    environment.filters.update(value_location=value_location, base64_lines=png_base64_lines)
    environment.globals["zip"] = zip
    return environment.get_template("summary.html")


# The landing part of the page (the run-kind banner, the headline and the substitutes of author-held
# inputs): written between these two markers so that the report's landing text
# (workflow/report/workflow.rst) can show it.
LANDING_KEYS = ("run-kind", "headline", "substitutes")
LANDING_START, LANDING_END = '<div id="landing">', "</div><!--/landing-->"


def landing_sections(sections: Sequence[Section]) -> list[Section]:
    """The sections of the landing part (keys in ``LANDING_KEYS``), in page order."""
    return [s for s in sections if s.key in LANDING_KEYS]


def body_sections(sections: Sequence[Section]) -> list[Section]:
    """The sections after the landing part, in page order."""
    return [s for s in sections if s.key not in LANDING_KEYS]


def check_block_types(sections: Sequence[Section]) -> None:
    """A block the templates cannot lay out raises TypeError (it would be left out silently)."""
    for s in sections:
        for block in s.blocks:
            if not isinstance(block, BLOCK_TYPES):
                raise TypeError(f"unknown block {type(block).__name__} in section {s.key!r}")


PAGE_LEDE = ("Read this page first. Every number is read from a report table of this run (hover over it for the "
             "file, line and column); the paper's values come from the same rows (reference columns, joined from "
             "the configured reference-values file).")


def render_page(sections: Sequence[Section], title: str = "Evidence Ledger: run summary",
                lede: str = PAGE_LEDE) -> str:
    """The whole page (``templates/summary.html``): a title, a contents line, then each section
    (or why it is absent); the sections whose keys are in ``LANDING_KEYS`` sit between
    ``LANDING_START`` and ``LANDING_END``, the others follow. Deterministic: the same sections
    give the same bytes."""
    check_block_types(sections)
    return page_template().render(title=title, lede=lede, sections=sections, landing=landing_sections(sections),
                                  body=body_sections(sections), landing_start=Markup(LANDING_START),
                                  landing_end=Markup(LANDING_END))
