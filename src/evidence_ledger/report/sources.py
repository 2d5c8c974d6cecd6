"""Report TSVs read as text, and the values taken from them for the summary page.

In:  a report TSV (written by ``report_tsv.write_report_tsv``: tab-separated, header row,
     ``NaN`` for missing values). Out: a :class:`SourceTable` holding every cell as the exact
     text of the file, with the 1-based file line of each row (the header is line 1), and
     :class:`Value` objects naming one cell (file, line, column, text) plus how it is shown.

The summary page never computes a number: each number it shows is one cell of one of these
tables, formatted for reading (``display``), and carries the cell's address, so a test (and
a reader hovering over it) can check it against the file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

MISSING_TEXT = "–"  # shown for a missing number (NaN) or an empty cell
KINDS = ("points", "rate", "count", "number", "text", "flag")
DECIMALS = {"points": 2, "rate": 3}


@dataclass(frozen=True)
class SourceTable:
    """One report TSV as text. ``path``: as given (shown on the page); ``rows``: column -> text."""
    path: str
    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]
    lines: tuple[int, ...]


@dataclass(frozen=True)
class Value:
    """One cell of a source table and how it is shown: ``kind`` points (2 decimals), rate (a
    fraction, 3 decimals), count (integer), number (4 significant digits), flag (True/False
    shown yes/no) or text (as is)."""
    path: str
    line: int
    column: str
    text: str
    kind: str

    @property
    def display(self) -> str:
        return display_text(self.text, self.kind)


def display_text(text: str, kind: str) -> str:
    """The shown form of a cell's text: points / rates rounded to ``DECIMALS[kind]`` places,
    counts as integers, numbers to 4 significant digits, ``NaN`` / empty as ``MISSING_TEXT``,
    flags as yes/no."""
    if kind not in KINDS:
        raise ValueError(f"unknown value kind {kind!r}; expected one of {KINDS}")
    if text in ("", "NaN"):
        return MISSING_TEXT
    if kind == "text":
        return text
    if kind == "flag":
        return {"True": "yes", "False": "no"}[text]
    number = float(text)
    if kind == "count":
        return str(int(number)) if number.is_integer() else text
    if kind == "number":
        return f"{number:.4g}"
    rounded = round(number, DECIMALS[kind])
    return f"{0.0 if rounded == 0 else rounded:.{DECIMALS[kind]}f}"  # no "-0.00"


def read_source_table(path) -> SourceTable:
    """Read a report TSV; a row with a different number of fields than the header raises
    :class:`InputError` naming the file and line."""
    text = Path(path).read_text(encoding="utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputError(path, 1, None, "empty report table (no header row)")
    columns = tuple(lines[0].split("\t"))
    rows, numbers = [], []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(columns):
            raise InputError(path, number, None, f"{len(fields)} fields, header has {len(columns)}")
        rows.append(dict(zip(columns, fields)))
        numbers.append(number)
    return SourceTable(str(path), columns, tuple(rows), tuple(numbers))


def find_rows(table: SourceTable, /, **keys: str) -> list[int]:
    """Indices of the rows whose text equals ``keys`` on every given column (a column the
    table lacks counts as ``''``)."""
    return [i for i, row in enumerate(table.rows) if all(row.get(k, "") == v for k, v in keys.items())]


def find_row(table: SourceTable | None, /, **keys: str) -> int | None:
    """The one row matching ``keys`` (see ``find_rows``), None when there is none; more than
    one match raises :class:`InputError` (the page would otherwise pick one silently)."""
    if table is None:
        return None
    hits = find_rows(table, **keys)
    if len(hits) > 1:
        raise InputError(table.path, table.lines[hits[1]], None, f"more than one row matches {keys}")
    return hits[0] if hits else None


def value(table: SourceTable, row: int, column: str, kind: str) -> Value:
    """The cell ``column`` of row index ``row`` as a :class:`Value`."""
    if column not in table.columns:
        raise InputError(table.path, 1, column, "column missing from the report table")
    return Value(table.path, table.lines[row], column, table.rows[row][column], kind)


def is_missing(v: Value | None) -> bool:
    """True when there is no cell or its number is NaN / empty."""
    if v is None or v.text in ("", "NaN"):
        return True
    try:
        return math.isnan(float(v.text))
    except ValueError:
        return False
