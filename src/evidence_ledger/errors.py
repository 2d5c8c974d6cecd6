"""Errors for bad input: every message names the file, the 1-based line and the field."""
from __future__ import annotations


class InputError(ValueError):
    """Malformed input record. ``str(err)`` reads ``FILE:LINE: field 'F': message``."""

    def __init__(self, path, line: int | None, field: str | None, message: str):
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        where = self.path if line is None else f"{self.path}:{line}"
        what = f"field {field!r}: " if field else ""
        super().__init__(f"{where}: {what}{message}")
