"""FEVER 1.0 readers: claims jsonl and the ``wiki-pages/*.jsonl`` dump.

In:  ``paper_dev.jsonl`` / ``shared_task_dev.jsonl`` / ``train.jsonl`` records
     ``{id, verifiable, label, claim, evidence}``; evidence = list of groups, each a list of
     ``[annotation_id, evidence_id, page, line]`` (``page``/``line`` null for NOT ENOUGH INFO);
     wiki pages ``{id, text, lines}`` with ``lines`` = ``"i\\tsentence\\tlink\\t..."`` rows
     joined by newlines.
Out: CLAIMS rows (unit ids ``"{page}::{line}"``), UNITS (kind ``sentence``, context = the page
     title with FEVER's bracket escapes undone) and DOCUMENTS (one per page).
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ..benchmark_registry import FEVER
from ..errors import InputError
from ..tables.ingest import CLAIMS, DOCUMENTS, UNITS
from .records import check_label, dedupe_groups, inside_root, iter_jsonl, require, resolve_gold_ids

DATASET = "fever"
LABELS = FEVER.labels
NEI = FEVER.nei_label
_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}",
            "-COLON-": ":"}


def fever_unit_id(page: str, line: int) -> str:
    return f"{page}::{line}"


def page_title(page_id: str) -> str:
    """Readable title of a FEVER page id: underscores to spaces, ``-LRB-`` etc. to brackets."""
    title = page_id.replace("_", " ")
    for code, char in _ESCAPES.items():
        title = title.replace(code, char)
    return title


def evidence_groups_of(record: dict, path, line: int) -> list[list[str]]:
    """Gold groups of one claim record as unit ids (NOT ENOUGH INFO -> no groups).

    Each group keeps its sentences in annotation order; identical groups (same id set) are
    kept once, first occurrence first. A verifiable claim whose evidence item lacks page or
    line, or has a non-integer line, raises ``InputError`` on field ``evidence``.
    """
    label = record["label"]
    groups = require(record, "evidence", list, path, line)
    if label == NEI:
        return []
    out = []
    for g, group in enumerate(groups):
        if not isinstance(group, list) or not group:
            raise InputError(path, line, "evidence", f"group {g} is not a non-empty list")
        ids = []
        for item in group:
            if not isinstance(item, list) or len(item) != 4:
                raise InputError(path, line, "evidence", f"group {g}: item {item!r} is not [ann_id, ev_id, page, line]")
            page, sent = item[2], item[3]
            if not isinstance(page, str) or not page or isinstance(sent, bool) or not isinstance(sent, int):
                raise InputError(path, line, "evidence",
                                 f"group {g}: {label} claim has evidence item without page/line: {item!r}")
            ids.append(fever_unit_id(page, sent))
        out.append(ids)
    if not out:
        raise InputError(path, line, "evidence", f"{label} claim has no evidence group")
    return dedupe_groups(out)


def read_fever_claims(path, unit_ids=None, on_unresolved: str = "error") -> pa.Table:
    """Read a FEVER claims jsonl into a CLAIMS table (file order).

    ``unit_ids``: the set of wiki unit ids to resolve gold evidence against, or None to load
    claims without a wiki (gold ids kept, ``unresolved_ids`` null). ``on_unresolved``:
    ``"error"`` (default) raises on the first gold id missing from ``unit_ids``; ``"count"``
    keeps it and lists it in ``unresolved_ids``. Duplicate claim ids raise.
    """
    path = Path(path)
    rows, seen = [], {}
    for line, rec in iter_jsonl(path):
        cid = require(rec, "id", int, path, line)
        claim = require(rec, "claim", str, path, line)
        label = check_label(require(rec, "label", str, path, line), LABELS, path, line)
        if str(cid) in seen:
            raise InputError(path, line, "id", f"duplicate claim id {cid} (first on line {seen[str(cid)]})")
        seen[str(cid)] = line
        rows.append({
            "dataset": DATASET, "claim_id": str(cid), "claim": claim, "label": label,
            "evidence_groups": evidence_groups_of(rec, path, line), "gold_abstracts": [],
            "cited_doc_ids": [], "source_file": str(path), "source_line": line,
        })
    resolve_gold_ids(rows, unit_ids, on_unresolved)
    return CLAIMS.from_rows(rows)


def wiki_files(wiki, allowed_root=None) -> list[Path]:
    """The ``*.jsonl`` files of a wiki-pages directory (sorted by name), or a single file.

    Every file found in the directory must resolve (symlinks followed) inside ``allowed_root``
    (the pipeline passes ``data_root``; default: the directory itself), else ``InputError``
    naming the file.
    """
    wiki = Path(wiki)
    if wiki.is_dir():
        files = sorted(wiki.glob("*.jsonl"))
        if not files:
            raise InputError(wiki, None, None, "wiki-pages directory holds no *.jsonl files")
        root = wiki if allowed_root is None else allowed_root
        return [inside_root(f, root) for f in files]
    return [wiki]


def parse_lines(lines: str, path, line: int) -> list[tuple[int, str]]:
    """``(line_no, sentence)`` pairs of a page's ``lines`` field.

    Rows are ``"i\\tsentence\\t<links...>"``; rows whose sentence is empty (layout gaps of the
    dump) hold no unit and are skipped; a row whose first field is not an integer raises.
    """
    out = []
    for row in lines.split("\n"):
        if not row.strip():
            continue
        parts = row.split("\t")
        try:
            number = int(parts[0])
        except ValueError:
            raise InputError(path, line, "lines", f"row {row[:60]!r} does not start with a line number") from None
        sentence = parts[1].strip() if len(parts) > 1 else ""
        if sentence:
            out.append((number, sentence))
    return out


def read_fever_wiki(wiki, progress=None, allowed_root=None) -> tuple[pa.Table, pa.Table]:
    """Read ``wiki-pages`` (directory of jsonl files, or one file) into (UNITS, DOCUMENTS).

    Pages with an empty id (the dump's first record) carry no content and are skipped.
    A page id seen twice raises ``InputError``. Units are in file/page/line order.
    ``progress``: optional callable, called with 1 after each wiki file. ``allowed_root``: see
    :func:`wiki_files`.
    """
    units, docs, seen = [], [], {}
    for path in wiki_files(wiki, allowed_root):
        for line, rec in iter_jsonl(path):
            page = require(rec, "id", str, path, line)
            if page == "":
                continue
            if page in seen:
                raise InputError(path, line, "id", f"duplicate page id {page!r} (first at {seen[page]})")
            seen[page] = f"{path}:{line}"
            lines = require(rec, "lines", str, path, line)
            title = page_title(page)
            sentences = parse_lines(lines, path, line)
            for position, (number, sentence) in enumerate(sentences):
                units.append({"dataset": DATASET, "unit_id": fever_unit_id(page, number), "doc_id": page,
                              "kind": "sentence", "position": position, "text": sentence, "context": title})
            docs.append({"dataset": DATASET, "doc_id": page, "title": title,
                         "text": " ".join(s for _, s in sentences)})
        if progress is not None:
            progress(1)
    return UNITS.from_rows(units), DOCUMENTS.from_rows(docs)


def ingest_fever(claims_by_split: dict, wiki=None, on_unresolved: str = "error", progress=None, data_root=None):
    """(claims table per split, UNITS, DOCUMENTS); ``wiki`` None = claims-only load (empty
    UNITS/DOCUMENTS, gold ids kept with ``unresolved_ids`` null). Files found in a wiki-pages
    directory must resolve inside ``data_root`` (default: that directory)."""
    if wiki is None:
        units, docs = UNITS.empty(), DOCUMENTS.empty()
        unit_ids = None
    else:
        units, docs = read_fever_wiki(wiki, progress, data_root)
        unit_ids = set(units.column("unit_id").to_pylist())
    claims = {split: read_fever_claims(path, unit_ids, on_unresolved) for split, path in claims_by_split.items()}
    return claims, units, docs
