"""Summary-page sections of a system accounted from its prediction files (``account``).

In:  the report TSVs of one accounted system (the Study 1 tables of ``evidence_ledger.prediction_files``:
     ``estimates.tsv``, ``intervals.tsv`` and ``answer_metrics.tsv``) read by
     ``sources.read_source_table``, the PNG of its decomposition figure, and its format's layout
     (:class:`AccountedLayout`: the rate rows its format shows, their caption, the answer score's
     name and what the Eq. 4 caption adds; plain values, given by the format).
Out: :class:`~.summary.Section` objects built from the summary page's own cells and blocks: the
     cells T00..T11 and the components with their intervals, the decomposition figure, the
     per-gold-class contributions, the format's rates and the Eq. 4 terms (with the
     answer-metric intervals); and the headline paragraph of the page the ``account`` command
     writes.

Both the pipeline's summary page (one section per system under config ``external``:
:func:`accounted_sections`) and the ``account`` command's one-page summary
(:func:`accounted_summary_page`) call :func:`accounted_system_section`, so the two show the
same numbers the same way. Every number is a cell of a source TSV (``sources.Value``).
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping, Sequence

from .decomposition import decomposition_figure, decomposition_png_bytes
from .item_links import estimates_items_links
from .sources import MISSING_TEXT, SourceTable, find_row, read_source_table
from .run_sections import whole_table_section
from .study1_rows import EQ4_TERMS, STUDY1_CELLS, STUDY1_COMPONENTS
from .study1_sections import study1_bars
from .summary import Figure, Paragraph, Section, Table, cell, interval_cell, render_page

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AccountedLayout:
    """What an accounted system's section shows beyond its cells and components, as its format
    says (``AccountedFormat.page_layout``): ``rates`` ``(quantity, meaning)`` rows and their
    caption, ``answer_name`` (the quantity whose interval an Eq. 4 mean correctness has) and
    ``eq4_note`` (appended to the Eq. 4 caption)."""

    rates: tuple[tuple[str, str], ...] = ()
    rates_caption: str = ""
    answer_name: str = "accuracy"
    eq4_note: str = ""

    @classmethod
    def of(cls, layout: Mapping | None) -> "AccountedLayout":
        """From the plain mapping a format gives (a rule's param)."""
        layout = dict(layout or {})
        return cls(tuple(tuple(row) for row in layout.get("rates", ())), layout.get("rates_caption", ""),
                   layout.get("answer_name", "accuracy"), layout.get("eq4_note", ""))


def estimate_or_interval(estimates: SourceTable | None, *interval_tables: SourceTable | None,
                         quantity: str) -> tuple:
    """``estimate [lower, upper]`` of ``quantity`` (population ``all``) from the first interval
    table with a row for it, else its replicate-averaged estimate, else ``–``."""
    for table in interval_tables:
        r = find_row(table, population="all", quantity=quantity) if table is not None else None
        if r is not None:
            return interval_cell(table, r, "estimate", "lower", "upper")
    if estimates is None:
        return (MISSING_TEXT,)
    return cell(estimates, find_row(estimates, population="all", quantity=quantity, part="", replicate="-1"),
                "value", "points")


def interval_caption(family_size: int, alpha: float, resample_runs: bool = False, clusters: str = "claims") -> str:
    """What the intervals of an accounted system are (settings of its bootstrap)."""
    level = f"{100 * (1 - alpha):g}%"
    adjusted = ("pointwise" if int(family_size) == 1 else
                f"Bonferroni-adjusted over {int(family_size)} comparisons (each at {100 * (1 - alpha / family_size):g}%)")
    runs = "runs drawn with replacement in every draw" if resample_runs else "runs averaged, not resampled"
    return f"{level} percentile intervals, {adjusted}; paired bootstrap of {clusters}, {runs}"


#: the quantity whose interval an Eq. 4 term has (``{a}`` = the answer source): the direct form
#: and the sum are E_a itself, the mean correctness is the accuracy of those answers
EQ4_INTERVAL_OF = {"direct": "E{a}", "sum": "E{a}", "accuracy": "{metric}_{a}", "eligibility_diff": "eligibility_diff",
                   "product": "eq4_product_{a}", "covariance": "eq4_covariance_{a}"}


def eq4_cell(estimates: SourceTable, intervals: SourceTable | None, metrics: SourceTable | None, term: str,
             source: str, metric: str = "accuracy") -> tuple:
    """An Eq. 4 term of answer source ``source`` with the interval of the quantity it equals
    (:data:`EQ4_INTERVAL_OF`; ``metric``: the answer score, KILT's downstream metric), else its
    estimate."""
    quantity = EQ4_INTERVAL_OF[term].format(a=source, metric=metric)
    for table in (intervals, metrics):
        r = find_row(table, population="all", quantity=quantity) if table is not None else None
        if r is not None:
            return interval_cell(table, r, "estimate", "lower", "upper")
    return estimate_or_interval(estimates, quantity=f"eq4_{term}_{source}")


def accounted_system_section(key: str, title: str, estimates: SourceTable | None, intervals: SourceTable | None,
                             metrics: SourceTable | None = None, decomposition_png: bytes | None = None, *,
                             layout: AccountedLayout = AccountedLayout(), intro: str = "",
                             caption: str = "") -> Section:
    """One accounted system: cells and components with intervals, its decomposition figure, the
    per-gold-class contributions (where the estimates have them), its format's rates
    (``layout``) and Eq. 4 (where the estimates have its terms). ``caption``: what the intervals
    are (:func:`interval_caption`)."""
    nav = title.split(":")[0]
    if estimates is None:
        return Section(key, title, nav=nav, absent="no estimates for this system")
    rows = [((q,), (meaning,), estimate_or_interval(estimates, intervals, quantity=q))
            for q, meaning in STUDY1_CELLS + STUDY1_COMPONENTS]
    blocks = [Table(("Quantity", "Definition", "Estimate [interval]"), tuple(rows), (False, False, True),
                    caption="Points (score × 100), each run's official score averaged over the runs; intervals: "
                            + (caption or "percentile intervals of the paired claim bootstrap") + ".")]
    blocks += estimates_items_links(estimates, "study1")  # an account's items are a Study 1 accounting's
    if decomposition_png is not None:
        blocks.append(Figure(decomposition_png, f"{title}: gain, E0 + A1, A0 + E1",
                             "The gain split both ways: E0 + A1 (change the evidence first) and A0 + E1 (change the "
                             "answers first); black: interval."))
    classes = [row["part"] for row in estimates.rows if row["quantity"] == "gain" and row["part"]
               and row["replicate"] == "-1"]
    if classes:
        parts = ("gain", "E0", "A1", "A0", "E1")
        blocks.append(Table(("Gold class",) + parts, tuple(
            ((label,),) + tuple(cell(estimates, find_row(estimates, population="all", quantity=q, part=label,
                                                         replicate="-1"), "value", "points") for q in parts)
            for label in classes), (False,) + (True,) * len(parts),
            caption="Contributions of each gold class (points on the full denominator: the classes add up to the "
                    "column's quantity)."))
    if layout.rates and find_row(estimates, population="all", quantity=layout.rates[0][0], part="",
                                 replicate="-1") is not None:
        blocks.append(Table(("Quantity", "Definition", "Estimate [interval]"),
                            tuple(((q,), (meaning,), estimate_or_interval(estimates, metrics, quantity=q))
                                  for q, meaning in layout.rates), (False, False, True),
                            caption=layout.rates_caption))
    if find_row(estimates, population="all", quantity="eq4_sum_0", part="", replicate="-1") is not None:
        eq4 = tuple(((term,), (meaning,)) + tuple(eq4_cell(estimates, intervals, metrics, term, source,
                                                           layout.answer_name)
                                                    for source in ("0", "1"))
                    for term, meaning in EQ4_TERMS)
        blocks.append(Table(("Term", "Meaning", "a = 0", "a = 1"), eq4, (False, False, True, True),
                            caption="Eq. 4: the evidence gain E_a = c̄_a × ΔĒ + cov(c_a, ΔE) (points; every "
                                    "interval from the same claim draws)." + layout.eq4_note))
    return Section(key, title, nav=nav, intro=intro, blocks=tuple(blocks))


def accounted_headline_section(title: str, intervals: SourceTable | None) -> Section:
    """The page's headline: the gain and its split E0 + A1 with their intervals."""
    fragments: tuple = ()
    for quantity, label in (("gain", "Gain T11 − T00: "), ("E0", "; evidence part E0: "),
                            ("A1", "; answer part A1: ")):
        r = find_row(intervals, population="all", quantity=quantity)
        if r is not None:
            fragments += (label,) + interval_cell(intervals, r, "estimate", "lower", "upper")
    if not fragments:
        return Section("headline", title, absent="no intervals")
    return Section("headline", title, blocks=(Paragraph(fragments + (" points.",)),))


def decomposition_png(estimates, intervals, title: str) -> bytes:
    """The decomposition figure of one set of Study 1 tables as PNG bytes."""
    return decomposition_png_bytes(study1_bars(estimates, intervals), title)


def accounted_sections(estimates: Sequence, intervals: Sequence, metrics: Sequence, titles: Sequence[str],
                       layouts: Sequence[Mapping]) -> list:
    """One summary-page section per accounted system (aligned lists of its report TSVs, titles
    and format layouts)."""
    if not len(estimates) == len(intervals) == len(metrics) == len(titles) == len(layouts):
        raise ValueError(f"accounted systems: {len(estimates)} estimates, {len(intervals)} intervals, "
                         f"{len(metrics)} metrics tables, {len(layouts)} layouts but {len(titles)} titles")
    sections = []
    for i, (est, iv, met, title, layout) in enumerate(zip(estimates, intervals, metrics, titles, layouts), start=1):
        est, iv, met = read_source_table(est), read_source_table(iv), read_source_table(met)
        sections.append(accounted_system_section(f"accounted{i}", title, est, iv, met,
                                                 decomposition_png(est, iv, f"{title}: gain = E0 + A1 = A0 + E1"),
                                                 layout=AccountedLayout.of(layout)))
    return sections


def accounted_summary_page(*, title: str, estimates, intervals, metrics=None, provenance=None, intro: str = "",
                           caption: str = "", layout: Mapping | None = None, html_out, decomposition_out) -> None:
    """The one-page summary of one accounted system (the ``account`` command's): headline
    (gain, E0, A1 with intervals), the system's section (:func:`accounted_system_section`,
    the pipeline page's own for systems under ``external``), and the inputs and settings
    (``provenance``, a ``section, key, value`` TSV) shown whole; the decomposition figure is
    also written to ``decomposition_out``. Values name their tables relative to the page's
    directory (the page travels with its tables)."""
    page_dir = Path(html_out).parent

    def beside_page(path):
        return None if not path else replace(read_source_table(path), path=os.path.relpath(path, page_dir))

    est, iv, met = beside_page(estimates), beside_page(intervals), beside_page(metrics)
    Path(decomposition_out).parent.mkdir(parents=True, exist_ok=True)
    decomposition_figure(study1_bars(est, iv), decomposition_out, title=f"{title}: gain = E0 + A1 = A0 + E1")
    png = Path(decomposition_out).read_bytes()
    sections = [accounted_headline_section("At a glance", iv),
                accounted_system_section("system", title, est, iv, met, png, layout=AccountedLayout.of(layout),
                                         intro=intro, caption=caption)]
    if provenance:
        sections.append(whole_table_section("inputs", "Inputs and settings", beside_page(provenance)))
    Path(html_out).parent.mkdir(parents=True, exist_ok=True)
    lede = ("Every number is read from a table beside this page (hover over it for the file, line and column); "
            "ledger.json holds the same numbers with the sha256 of every input file.")
    Path(html_out).write_text(render_page(sections, title=f"Evidence Ledger: {title}", lede=lede), encoding="utf-8")
    log.info("accounted summary page -> %s", html_out)
