"""The summary page: the run's headline results on one self-contained HTML page.

In:  report TSVs read by ``sources.read_source_table`` (Study 1 estimates and intervals,
     Study 2 primary and crossed intervals, decision criteria and label, WikiContradict
     rates and detection, DiffGR, provenance; any of them may be absent) and PNG bytes.
Out: :class:`Section` objects (tables of cells, paragraphs, figures) and the page HTML, laid out
     by the Jinja2 templates in ``templates/`` (package data) from the values computed here.
     This module holds the page's blocks, the cells every section builds from, and the HTML;
     the sections are in ``study1_sections``, ``study2_sections``, ``conflict_sections`` and
     ``run_sections``.

A :class:`Link` is text that links to another page of the run (the item explorer,
``items.html``, beside the summary page: ``report.item_links``).

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

from .sources import MISSING_TEXT, SourceTable, Value, find_row, find_rows, is_missing, value


@dataclass(frozen=True)
class Link:
    """Text shown as a link to ``href`` (a URL relative to the page)."""
    text: str
    href: str


Fragment = Union[Value, Link, str]
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
    style: str = "headline"  # its class on the page: "headline" (boxed) or "links" (a plain line)


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
    """``templates/summary.html`` of this package. The templates tell a value or a link from text
    and one block from another with the tests ``value``, ``link``, ``table``, ``paragraph`` and
    ``figure``."""
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"), autoescape=True, finalize=html_escaped,
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    environment.tests.update({cls.__name__.lower(): (lambda obj, cls=cls: isinstance(obj, cls))
                              for cls in (Value, Link) + BLOCK_TYPES})
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
