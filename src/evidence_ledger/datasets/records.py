"""Shared record-level helpers for the readers: field checks, id resolution (JSONL reading is
``evidence_ledger.files.jsonl.iter_jsonl``, re-exported here).

In:  a path to a jsonl file, or one decoded record plus its (path, line).
Out: ``(line_no, record)`` pairs, checked field values, or claims rows with their gold ids
resolved against a set of unit ids (the ids a corpus holds, or those of the wanted gold ids
found while streaming it).
"""
from __future__ import annotations

import logging
from pathlib import Path

from ..errors import InputError
from ..files.safe_files import is_inside
from ..tables.ingest import CLAIMS
from ..files.jsonl import iter_jsonl  # noqa: F401  (the one JSONL reader, re-exported for the readers)

ON_UNRESOLVED = ("error", "count")

log = logging.getLogger(__name__)


def inside_root(path, root) -> Path:
    """``path`` itself when it resolves (symlinks followed) inside ``root``; else ``InputError``
    naming the file. Used for every file found by listing a data directory, so a link such as
    ``wiki-pages/wiki-999.jsonl -> /elsewhere/evil.jsonl`` is refused."""
    if not is_inside(root, path):
        raise InputError(path, None, None, f"resolves to {Path(path).resolve()}, outside the data root "
                                           f"{Path(root).resolve()}; files found in a data directory must stay inside it")
    return Path(path)


def require(record: dict, field: str, types, path, line: int):
    """``record[field]`` checked against ``types`` (a type or tuple); missing or mistyped raises."""
    if field not in record:
        raise InputError(path, line, field, "missing field")
    value = record[field]
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
        names = "/".join(t.__name__ for t in _as_tuple(types))
        raise InputError(path, line, field, f"expected {names}, got {type(value).__name__} {value!r:.80}")
    return value


def _as_tuple(types):
    return types if isinstance(types, tuple) else (types,)


def check_label(label, allowed: tuple[str, ...], path, line: int, field: str = "label") -> str:
    """Return ``label`` if it is one of ``allowed`` (exact spelling), else raise ``InputError``."""
    if label not in allowed:
        raise InputError(path, line, field, f"unknown label {label!r}; expected one of {list(allowed)}")
    return label


def check_on_unresolved(mode: str) -> str:
    if mode not in ON_UNRESOLVED:
        raise ValueError(f"on_unresolved must be one of {ON_UNRESOLVED}, got {mode!r}")
    return mode


def resolve_gold_ids(rows: list[dict], unit_ids, on_unresolved: str = "error",
                     field: str = "evidence") -> list[dict]:
    """Fill each claims row's ``unresolved_ids`` by checking its gold ids against ``unit_ids``.

    ``unit_ids`` None means no corpus was given: resolution is not checked and
    ``unresolved_ids`` is None (ids kept as released). Otherwise every id of every evidence
    group must be in ``unit_ids``; the first one that is not raises ``InputError`` (file, line
    of the claim, ``field``) under ``on_unresolved="error"``, or is listed (once, in group
    order) in ``unresolved_ids`` under ``"count"``, and the count kept is logged (a warning
    per source file naming the ids and claims kept). Rows are updated in place and returned.
    """
    check_on_unresolved(on_unresolved)
    for row in rows:
        if unit_ids is None:
            row["unresolved_ids"] = None
            continue
        missing: list[str] = []
        for group in row["evidence_groups"]:
            for uid in group:
                if uid not in unit_ids and uid not in missing:
                    if on_unresolved == "error":
                        raise InputError(row["source_file"], row["source_line"], field,
                                         f"gold evidence id {uid!r} does not resolve to any unit of the corpus")
                    missing.append(uid)
        row["unresolved_ids"] = missing
    if on_unresolved == "count" and unit_ids is not None:
        _log_unresolved_kept(rows, field)
    return rows


def wanted_gold_ids(rows_by_split: dict) -> set:
    """Every unit id of every gold evidence group of the claims rows (``split -> rows``)."""
    return {u for rows in rows_by_split.values() for row in rows for group in row["evidence_groups"] for u in group}


def claim_tables(rows_by_split: dict, unit_ids, on_unresolved: str) -> dict:
    """``split -> CLAIMS table`` of the rows, gold ids resolved against ``unit_ids`` first
    (:func:`resolve_gold_ids`; it raises under ``on_unresolved="error"``)."""
    out = {}
    for split, rows in rows_by_split.items():
        resolve_gold_ids(rows, unit_ids, on_unresolved)
        out[split] = CLAIMS.from_rows(rows)
    return out


def _log_unresolved_kept(rows: list[dict], field: str) -> None:
    """One log line per source file: how many unresolved gold ids ``on_unresolved: count`` kept."""
    per_file: dict[str, list[int]] = {}
    for row in rows:
        counts = per_file.setdefault(str(row["source_file"]), [0, 0, 0])
        counts[0] += 1
        if row["unresolved_ids"]:
            counts[1] += 1
            counts[2] += len(row["unresolved_ids"])
    for source, (n_claims, n_affected, n_ids) in per_file.items():
        level = logging.WARNING if n_ids else logging.INFO
        log.log(level, "%s: on_unresolved=count kept %d gold %s ids that do not resolve to a unit "
                "(%d of %d claims affected)", source, n_ids, field, n_affected, n_claims)


def dedupe_groups(groups: list[list[str]]) -> list[list[str]]:
    """Drop repeated ids inside a group and groups with the same id set, keeping first occurrences."""
    seen: set[frozenset[str]] = set()
    out: list[list[str]] = []
    for group in groups:
        ids = list(dict.fromkeys(group))
        key = frozenset(ids)  # coverage is set containment: [A, B] and [B, A] are one group
        if key in seen:
            continue
        seen.add(key)
        out.append(ids)
    return out
