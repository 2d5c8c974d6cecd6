"""FEVEROUS readers: claims jsonl and the SQLite wiki ``feverous_wikiv1.db``.

In:  claims jsonl whose first line may be the release's empty header record (id and claim
     empty), then ``{id, claim, label, evidence: [{content: [ids], context: {id: [ids]}}]}``;
     wiki table ``wiki(id TEXT, data TEXT)`` with ``data`` a JSON page
     ``{title, order: [keys], sentence_k: str, section_k: {value, level}, table_k: {table:
     [[{id, value, is_header}]], caption?}, list_k: {list: [{id, value, level}]}}``.
Out: CLAIMS (evidence groups = each set's ``content`` list, ids as released), UNITS with ids
     ``{page}_{key}`` (``Page_sentence_3``, ``Page_cell_0_1_2``, ``Page_header_cell_0_0_1``,
     ``Page_item_0_2``, ``Page_table_caption_0``, ``Page_title``, ``Page_section_1``) and
     DOCUMENTS (one per page). Wiki link markup ``[[target|text]]`` is reduced to its text.
"""
from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pyarrow as pa

from ..benchmark_registry import FEVEROUS
from ..errors import InputError, Row
from ..jsonl import parse_json
from ..tables.ingest import CLAIMS, DOCUMENTS, UNITS
from .records import check_label, dedupe_groups, iter_jsonl, require, resolve_gold_ids

DATASET = "feverous"
LABELS = FEVEROUS.labels
_LINK = re.compile(r"\[\[([^\]|]*)\|([^\]]*)\]\]|\[\[([^\]|]*)\]\]")
CONTEXT_SEPARATOR = " | "


def strip_links(text: str) -> str:
    """``[[Target|shown]]`` -> ``shown``, ``[[Target]]`` -> ``Target``; other text unchanged."""
    return _LINK.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(3), text)


def is_header_record(rec: dict) -> bool:
    """The release's first line: a record whose id and claim are both empty."""
    return rec.get("id", "") in ("", None) and rec.get("claim", "") in ("", None)


def read_feverous_claims(path, unit_ids=None, on_unresolved: str = "error") -> pa.Table:
    """Read a FEVEROUS claims jsonl into CLAIMS (file order).

    Only the first line may be the empty header record (skipped); an empty id or claim on any
    other line raises. NOT ENOUGH INFO claims keep their annotated evidence sets (FEVEROUS
    scores NEI with evidence too). Each set must have a non-empty ``content`` list of ids.
    ``unit_ids`` / ``on_unresolved`` as in ``records.resolve_gold_ids``.
    """
    path = Path(path)
    rows, seen = [], {}
    for line, rec in iter_jsonl(path):
        if line == 1 and is_header_record(rec):
            continue
        cid = require(rec, "id", (int, str), path, line)
        if str(cid) == "":
            raise InputError(path, line, "id", "empty claim id outside the header line")
        claim = require(rec, "claim", str, path, line)
        if not claim:
            raise InputError(path, line, "claim", "empty claim text")
        label = check_label(require(rec, "label", str, path, line), LABELS, path, line)
        sets = require(rec, "evidence", list, path, line)
        groups = []
        for k, ev in enumerate(sets):
            if not isinstance(ev, dict) or "content" not in ev:
                raise InputError(path, line, "evidence", f"set {k} has no 'content' list")
            content = ev["content"]
            if not isinstance(content, list) or not content or not all(isinstance(x, str) and x for x in content):
                raise InputError(path, line, "evidence", f"set {k}: 'content' must be a non-empty list of ids")
            groups.append(list(content))
        if not groups:
            raise InputError(path, line, "evidence", "claim has no evidence set")
        if str(cid) in seen:
            raise InputError(path, line, "id", f"duplicate claim id {cid} (first on line {seen[str(cid)]})")
        seen[str(cid)] = line
        rows.append({
            "dataset": DATASET, "claim_id": str(cid), "claim": claim, "label": label,
            "evidence_groups": dedupe_groups(groups), "gold_abstracts": [], "cited_doc_ids": [],
            "source_file": str(path), "source_line": line,
        })
    resolve_gold_ids(rows, unit_ids, on_unresolved)
    return CLAIMS.from_rows(rows)


def _cell_headers(table: list, r: int, c: int) -> list[str]:
    """Header cells that label cell (r, c): headers left of it in its row, then above it in
    its column (by list position; spans are not expanded)."""
    out = []
    row = table[r]
    out += [strip_links(str(cell.get("value", ""))) for cell in row[:c] if cell.get("is_header")]
    for above in table[:r]:
        if c < len(above) and above[c].get("is_header"):
            out.append(strip_links(str(above[c].get("value", ""))))
    return [h for h in out if h]


def page_units(page: str, data: dict, where: tuple) -> list[dict]:
    """UNITS rows of one FEVEROUS page in document order (title first).

    ``where`` = (path, line) used in errors. Contexts: title for sentences/sections, plus the
    current section heading; cells also name their header cells (left in row, above in
    column). Keys in ``order`` with an unknown prefix, or whose payload is missing, raise.
    """
    path, line = where
    title = strip_links(str(data.get("title", page)))
    order = data.get("order")
    if not isinstance(order, list):
        raise InputError(path, line, "data.order", f"page {page!r}: missing 'order' list")
    units = []

    def add(key, kind, text, context_parts):
        context = CONTEXT_SEPARATOR.join(p for p in context_parts if p)
        units.append({"dataset": DATASET, "unit_id": f"{page}_{key}", "doc_id": page, "kind": kind,
                      "position": len(units), "text": text, "context": context})

    add("title", "title", title, [])
    section = ""
    for key in order:
        if key not in data:
            raise InputError(path, line, f"data.{key}", f"page {page!r}: key listed in 'order' is missing")
        value = data[key]
        if key.startswith("sentence_"):
            add(key, "sentence", strip_links(str(value)), [title, section])
        elif key.startswith("section_"):
            heading = strip_links(str(value.get("value", "") if isinstance(value, dict) else value))
            add(key, "section", heading, [title])
            section = heading
        elif key.startswith("table_"):
            if not isinstance(value, dict) or not isinstance(value.get("table"), list):
                raise InputError(path, line, f"data.{key}", f"page {page!r}: table has no 'table' rows")
            index = key[len("table_"):]
            if value.get("caption"):
                add(f"table_caption_{index}", "table_caption", strip_links(str(value["caption"])), [title, section])
            rows = value["table"]
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    if not isinstance(cell, dict) or "id" not in cell:
                        raise InputError(path, line, f"data.{key}", f"page {page!r}: cell ({r},{c}) has no id")
                    kind = "header_cell" if str(cell["id"]).startswith("header_cell_") else "cell"
                    headers = [] if kind == "header_cell" else _cell_headers(rows, r, c)
                    add(cell["id"], kind, strip_links(str(cell.get("value", ""))), [title, section, ", ".join(headers)])
        elif key.startswith("list_"):
            if not isinstance(value, dict) or not isinstance(value.get("list"), list):
                raise InputError(path, line, f"data.{key}", f"page {page!r}: list has no 'list' items")
            for item in value["list"]:
                if not isinstance(item, dict) or "id" not in item:
                    raise InputError(path, line, f"data.{key}", f"page {page!r}: list item without id")
                add(item["id"], "item", strip_links(str(item.get("value", ""))), [title, section])
        else:
            raise InputError(path, line, "data.order", f"page {page!r}: unknown element key {key!r}")
    return units


def read_feverous_wiki(db_path, progress=None) -> tuple[pa.Table, pa.Table]:
    """Read the SQLite wiki (read-only) into (UNITS, DOCUMENTS), pages in id order.

    Errors name the db file, the row's ``rowid`` as line and the JSON field. ``progress``:
    optional callable, called with 1 after each page.
    """
    db_path = Path(db_path)
    if not db_path.exists():
        raise InputError(db_path, None, None, "FEVEROUS wiki database not found")
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        try:
            cursor = con.execute("SELECT rowid, id, data FROM wiki ORDER BY id")
        except sqlite3.DatabaseError as exc:
            raise InputError(db_path, None, "wiki", f"cannot read table wiki(id, data): {exc}") from None
        units, docs = [], []
        for rowid, page, raw in cursor:
            row = Row(rowid)
            if isinstance(raw, bytes):
                raw = raw.decode("utf-8", errors="surrogateescape")
            if not isinstance(raw, str):
                raise InputError(db_path, row, "data", f"page {page!r}: malformed JSON: {type(raw).__name__} value")
            try:
                data = parse_json(raw, db_path, row, "data")
            except InputError as exc:
                raise InputError(db_path, row, "data", f"page {page!r}: {exc.message}") from None
            page_rows = page_units(page, data, (db_path, row))
            units += page_rows
            docs.append({"dataset": DATASET, "doc_id": page, "title": page_rows[0]["text"],
                         "text": " ".join(u["text"] for u in page_rows[1:] if u["text"])})
            if progress is not None:
                progress(1)
    finally:
        con.close()
    return UNITS.from_rows(units), DOCUMENTS.from_rows(docs)


def read_id_list(path) -> list[str]:
    """Ids one per line (blank lines and ``#`` comments ignored), in file order, duplicates kept once."""
    out: dict[str, None] = {}
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            text = line.split("#", 1)[0].strip()
            if text:
                out.setdefault(text, None)
    return list(out)


def ingest_feverous(claims_by_split: dict, wiki_db=None, on_unresolved: str = "error", progress=None):
    """(claims table per split, UNITS, DOCUMENTS); ``wiki_db`` None = claims-only load."""
    if wiki_db is None:
        units, docs = UNITS.empty(), DOCUMENTS.empty()
        unit_ids = None
    else:
        units, docs = read_feverous_wiki(wiki_db, progress)
        unit_ids = set(units.column("unit_id").to_pylist())
    claims = {split: read_feverous_claims(path, unit_ids, on_unresolved) for split, path in claims_by_split.items()}
    return claims, units, docs
