"""Argument types of the scorers' options on the command line (``score`` and ``account``).

In:  the text of one command-line value.
Out: the typed value, or an ``argparse.ArgumentTypeError`` saying what was expected (argparse
     prints it as one line and exits 2): :func:`count_at_least`, :func:`comma_list`, and the
     line-pairing choices :data:`MATCH_CHOICES`.
"""
from __future__ import annotations

import argparse

#: ``--match`` on the command line -> how the scorers pair prediction lines with gold lines
MATCH_CHOICES = {"auto": "auto", "positional": "position"}


def count_at_least(minimum: int):
    """argparse type: an integer >= ``minimum`` (a clear error instead of Python slicing surprises)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value
    parse.__name__ = f"integer >= {minimum}"
    return parse


def comma_list(item_type, what: str):
    """argparse type: a comma-separated list of distinct ``item_type`` values (``what`` names one)."""
    def parse(text: str) -> list:
        items = [piece.strip() for piece in text.split(",")]
        values = []
        for piece in items:
            value = item_type(piece)
            if value in values:
                raise argparse.ArgumentTypeError(f"{what} {piece!r} given twice")
            values.append(value)
        return values
    parse.__name__ = f"comma-separated {what}s"
    return parse
