"""The one JSON-lines reader of every input file (benchmark files, submissions, scorer inputs).

In:  a path to a UTF-8 JSON-lines file (or one JSON text plus where it came from).
Out: ``(line_no, record)`` pairs, 1-based line numbers, blank lines skipped; every record a
     JSON object.
Errors, one format (:class:`~evidence_ledger.errors.InputError`, ``FILE:LINE: field '<json>':
message``): bytes that are not UTF-8 (with the column), a line that is not JSON, JSON nested
too deeply for the parser (instead of a ``RecursionError``), a JSON value that is not an
object.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

from .errors import InputError

JSON_FIELD = "<json>"

# Bytes that are not UTF-8 decode to lone surrogates under ``surrogateescape``; valid UTF-8
# never produces them, so finding one means the line had undecodable bytes.
_UNDECODABLE = re.compile("[\udc80-\udcff]")


def parse_json(text: str, path, line: int | None, field: str = JSON_FIELD):
    """``json.loads(text)`` with its failures as InputError naming ``path``, ``line``, ``field``."""
    bad = _UNDECODABLE.search(text)
    if bad:
        byte = ord(bad.group()) - 0xDC00
        raise InputError(path, line, field, f"not valid UTF-8 (byte 0x{byte:02x} at column {bad.start() + 1})")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, line, field, f"malformed JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise InputError(path, line, field, "malformed JSON: nested too deeply to parse") from None


def iter_jsonl(path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_no, record)`` for every non-blank line of ``path`` (see module doc)."""
    path = Path(path)
    with path.open(encoding="utf-8", errors="surrogateescape") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            record = parse_json(line, path, line_no)
            if not isinstance(record, dict):
                raise InputError(path, line_no, JSON_FIELD, f"expected a JSON object, got {type(record).__name__}")
            yield line_no, record


def read_jsonl(path) -> list[tuple[int, dict]]:
    """All ``(line_no, record)`` pairs of a JSON-lines file, as a list."""
    return list(iter_jsonl(path))
