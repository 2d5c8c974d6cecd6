"""Errors for bad input: every message names the file, the 1-based line (or row) and the field."""
from __future__ import annotations


class Row(int):
    """A 1-based row number of a database table, written ``row N`` (not ``:N``) in messages."""


class InputError(ValueError):
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
