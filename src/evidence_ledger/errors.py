"""Errors a user can fix, and how their messages name the place.

:class:`ExpectedError` marks an error of a user's file, setting or argument (as opposed to a bug):
the command line prints its message as one line on stderr and exits 2, with no traceback
(``--debug`` or ``EVIDENCE_LEDGER_DEBUG=1`` shows it). :class:`InputError` is the one for a bad
record: its message names the file, the 1-based line (or row) and the field.
"""
from __future__ import annotations

import difflib
import os
from typing import Iterable

# set to anything but "" or "0" to see the traceback of an expected error (command line and jobs)
DEBUG_ENV = "EVIDENCE_LEDGER_DEBUG"


def debug_requested() -> bool:
    """Whether :data:`DEBUG_ENV` asks for tracebacks of expected errors."""
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def did_you_mean(value, allowed: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` naming the allowed word closest to ``value`` (``difflib``), or ''
    when none is close: the hint every one-line refusal of an unknown name ends with."""
    close = difflib.get_close_matches(str(value), [str(a) for a in allowed], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


class ExpectedError(Exception):
    """An error the user can fix; its message alone says what and where (no traceback needed)."""


class Row(int):
    """A 1-based row number of a database table, written ``row N`` (not ``:N``) in messages."""


class InputError(ExpectedError, ValueError):
    """Malformed input record. ``str(err)`` reads ``FILE:LINE: field 'F': message``
    (``FILE: row N: ...`` when ``line`` is a :class:`Row`)."""

    def __init__(self, path, line: int | None, field: str | None, message: str):
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        if line is None:
            where = self.path
        elif isinstance(line, Row):
            where = f"{self.path}: row {int(line)}"
        else:
            where = f"{self.path}:{line}"
        what = f"field {field!r}: " if field else ""
        super().__init__(f"{where}: {what}{message}")

    def __reduce__(self):
        # rebuilt from its parts (an error raised in a worker process reaches the parent as it is)
        return type(self), (self.path, self.line, self.field, self.message)
