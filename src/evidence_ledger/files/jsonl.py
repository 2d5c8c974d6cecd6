"""The one JSON-lines reader of every input file (benchmark files, submissions, scorer inputs).

In:  a path to a UTF-8 JSON-lines file (or one JSON text plus where it came from).
Out: ``(line_no, record)`` pairs, 1-based line numbers, blank lines skipped; every record a
     JSON object.
Errors, one format (:class:`~evidence_ledger.errors.InputError`, ``FILE:LINE: field '<json>':
message``): bytes that are not UTF-8 (with the column), a line that is not JSON, JSON nested
too deeply for the parser (instead of a ``RecursionError``), a number too long for Python's
integer conversion limit (instead of a bare ``ValueError``), a JSON value that is not an
object, and, where the caller asks for ``unique_keys``, an object that repeats a key (plain
``json.loads`` keeps the last value silently).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

from ..errors import InputError

JSON_FIELD = "<json>"

# Bytes that are not UTF-8 decode to lone surrogates under ``surrogateescape``; valid UTF-8
# never produces them, so finding one means the line had undecodable bytes.
_UNDECODABLE = re.compile("[\udc80-\udcff]")


def repeated_key(pairs: list[tuple[str, object]]) -> str | None:
    """The first key that occurs twice among one JSON object's ``(key, value)`` pairs, or None."""
    seen = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return None


class _RepeatedKey(Exception):
    def __init__(self, key: str):
        self.key = key


def _object_with_unique_keys(pairs: list[tuple[str, object]]) -> dict:
    key = repeated_key(pairs)
    if key is not None:
        raise _RepeatedKey(key)
    return dict(pairs)


def parse_json(text: str, path, line: int | None, field: str = JSON_FIELD, *, unique_keys: bool = False):
    """``json.loads(text)`` with its failures as InputError naming ``path``, ``line``, ``field``
    (``unique_keys``: an object repeating a key is one of them)."""
    bad = None if text.isascii() else _UNDECODABLE.search(text)  # isascii is O(1); undecodable bytes are not ASCII
    if bad:
        byte = ord(bad.group()) - 0xDC00
        raise InputError(path, line, field, f"not valid UTF-8 (byte 0x{byte:02x} at column {bad.start() + 1})")
    try:
        return json.loads(text, object_pairs_hook=_object_with_unique_keys if unique_keys else None)
    except json.JSONDecodeError as exc:
        raise InputError(path, line, field, f"malformed JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise InputError(path, line, field, "malformed JSON: nested too deeply to parse") from None
    except _RepeatedKey as exc:
        raise InputError(path, line, field, f"an object repeats the key {exc.key!r} (which value counts would "
                                            f"be a guess)") from None
    except ValueError as exc:  # e.g. an integer longer than Python's int string-conversion limit
        raise InputError(path, line, field, f"unreadable JSON value: {exc}") from None


def iter_jsonl(path, *, unique_keys: bool = False) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_no, record)`` for every non-blank line of ``path`` (see module doc)."""
    path = Path(path)
    with path.open(encoding="utf-8", errors="surrogateescape") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            record = parse_json(line, path, line_no, unique_keys=unique_keys)
            if not isinstance(record, dict):
                raise InputError(path, line_no, JSON_FIELD, f"expected a JSON object, got {type(record).__name__}")
            yield line_no, record


def read_jsonl(path, *, unique_keys: bool = False) -> list[tuple[int, dict]]:
    """All ``(line_no, record)`` pairs of a JSON-lines file, as a list."""
    return list(iter_jsonl(path, unique_keys=unique_keys))
