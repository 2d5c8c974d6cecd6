"""FEVEROUS readers: claims jsonl and the SQLite wiki ``feverous_wikiv1.db``.

In:  claims jsonl whose first line may be the release's empty header record (id and claim
     empty), then ``{id, claim, label, evidence: [{content: [ids], context: {id: [ids]}}]}``;
     wiki table ``wiki(id TEXT, data TEXT)`` with ``data`` a JSON page
     ``{title, order: [keys], sentence_k: str, section_k: {value, level}, table_k: {table:
     [[{id, value, is_header}]], caption?}, list_k: {list: [{id, value, level}]}}``.
Out: CLAIMS (evidence groups = each set's ``content`` list, ids as released), UNITS with ids
     ``{page}_{key}`` (``Page_sentence_3``, ``Page_cell_0_1_2``, ``Page_header_cell_0_0_1``,
     ``Page_item_0_2``, ``Page_table_caption_0``, ``Page_title``, ``Page_section_1``) and
     DOCUMENTS (one per page), pages in id order; ``write_feverous_release`` streams them to
     Parquet in bounded memory. Wiki link markup ``[[target|text]]`` is reduced to its text.
"""
from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Iterator

from ..benchmark_registry import FEVEROUS
from ..errors import InputError, Row
from ..files.jsonl import parse_json
from ..tables.ingest import CLAIMS, DOCUMENTS, UNITS
from ..vocabulary import feverous_element_id
from .corpus_tables import Page, write_corpus
from .records import check_label, claim_tables, dedupe_groups, iter_jsonl, require, wanted_gold_ids

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


def feverous_claim_rows(path) -> list[dict]:
    """CLAIMS rows of a FEVEROUS claims jsonl (file order), ``unresolved_ids`` not yet set.

    Only the first line may be the empty header record (skipped); an empty id or claim on any
    other line raises. NOT ENOUGH INFO claims keep their annotated evidence sets (FEVEROUS
    scores NEI with evidence too). Each set must have a non-empty ``content`` list of ids.
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
    return rows


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


def page_text(value, page: str, where: tuple, field: str) -> str:
    """The text of one element field with its links stripped; a value that is not a string (a
    NULL sentence, a numeric cell) is an InputError naming ``where`` = (path, row) and ``field``
    instead of becoming the text ``"None"``."""
    if not isinstance(value, str):
        shown = "null" if value is None else type(value).__name__
        raise InputError(*where, field, f"page {page!r}: expected text, got {shown}")
    return strip_links(value)


def element_key(value, page: str, where: tuple, field: str) -> str:
    """A cell's or list item's ``id``: a non-empty string, else an InputError naming the field."""
    if not isinstance(value, str) or not value:
        raise InputError(*where, field, f"page {page!r}: element id {value!r} is not a non-empty string")
    return value


def page_units(page: str, data: dict, where: tuple) -> Page:
    """One FEVEROUS page: its units in document order (title first) as parallel lists, its
    title (the title unit's text) and document text (the other units' non-empty texts joined).

    ``where`` = (path, line) used in errors. Contexts: title for sentences/sections, plus the
    current section heading; cells also name their header cells (left in row, above in
    column). Keys in ``order`` with an unknown prefix, or whose payload is missing, raise.
    """
    path, line = where
    title = page_text(data.get("title", page), page, where, "data.title")
    order = data.get("order")
    if not isinstance(order, list):
        raise InputError(path, line, "data.order", f"page {page!r}: missing 'order' list")
    unit_ids, kinds, texts, contexts = [], [], [], []
    first_field: dict[str, str] = {}

    def add(key, kind, text, context_parts, field="data.title"):
        unit_id = feverous_element_id(page, key)
        if unit_id in first_field:
            raise InputError(path, line, field, f"page {page!r}: element {key!r} occurs twice (first in "
                                                f"{first_field[unit_id]}): unit id {unit_id!r} would be ambiguous")
        first_field[unit_id] = field
        unit_ids.append(unit_id)
        kinds.append(kind)
        texts.append(text)
        contexts.append(CONTEXT_SEPARATOR.join(p for p in context_parts if p))

    add("title", "title", title, [])
    section = ""
    for key in order:
        if key not in data:
            raise InputError(path, line, f"data.{key}", f"page {page!r}: key listed in 'order' is missing")
        value = data[key]
        field = f"data.{key}"
        if key.startswith("sentence_"):
            add(key, "sentence", page_text(value, page, where, field), [title, section], field)
        elif key.startswith("section_"):
            heading = (page_text(value.get("value", ""), page, where, f"{field}.value") if isinstance(value, dict)
                       else page_text(value, page, where, field))
            add(key, "section", heading, [title], field)
            section = heading
        elif key.startswith("table_"):
            if not isinstance(value, dict) or not isinstance(value.get("table"), list):
                raise InputError(path, line, f"data.{key}", f"page {page!r}: table has no 'table' rows")
            index = key[len("table_"):]
            if value.get("caption"):
                add(f"table_caption_{index}", "table_caption",
                    page_text(value["caption"], page, where, f"{field}.caption"), [title, section], field)
            rows = value["table"]
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    if not isinstance(cell, dict) or "id" not in cell:
                        raise InputError(path, line, f"data.{key}", f"page {page!r}: cell ({r},{c}) has no id")
                    cell_field = f"{field}.table[{r}][{c}]"
                    cell_id = element_key(cell["id"], page, where, f"{cell_field}.id")
                    kind = "header_cell" if cell_id.startswith("header_cell_") else "cell"
                    headers = [] if kind == "header_cell" else _cell_headers(rows, r, c)
                    add(cell_id, kind, page_text(cell.get("value", ""), page, where, f"{cell_field}.value"),
                        [title, section, ", ".join(headers)], cell_field)
        elif key.startswith("list_"):
            if not isinstance(value, dict) or not isinstance(value.get("list"), list):
                raise InputError(path, line, f"data.{key}", f"page {page!r}: list has no 'list' items")
            for k, item in enumerate(value["list"]):
                if not isinstance(item, dict) or "id" not in item:
                    raise InputError(path, line, f"data.{key}", f"page {page!r}: list item without id")
                item_field = f"{field}.list[{k}]"
                add(element_key(item["id"], page, where, f"{item_field}.id"), "item",
                    page_text(item.get("value", ""), page, where, f"{item_field}.value"), [title, section], item_field)
        else:
            raise InputError(path, line, "data.order", f"page {page!r}: unknown element key {key!r}")
    return Page(doc_id=page, title=texts[0], text=" ".join(t for t in texts[1:] if t), unit_ids=unit_ids,
                kinds=kinds, texts=texts, contexts=contexts)


def iter_feverous_pages(db_path, progress=None) -> Iterator[Page]:
    """The pages of the SQLite wiki (read-only), one at a time, in ``id`` order.

    Errors name the db file, the row's ``rowid`` (``row N``), the page and the JSON field: a
    NULL or empty page id, a page id on two rows (naming both), ``data`` that is not a JSON
    object, an element text that is not a string (a NULL sentence), an element id that occurs
    twice on a page. ``progress``: optional callable, called with 1 after each
    page.
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
        previous, previous_row = None, None
        for rowid, page, raw in cursor:
            row = Row(rowid)
            if not isinstance(page, str) or not page:
                shown = "NULL" if page is None else repr(page)
                raise InputError(db_path, row, "id", f"page id is {shown}; expected the page title as non-empty text")
            if page == previous:
                raise InputError(db_path, row, "id", f"duplicate page id {page!r} (first at row {previous_row})")
            previous, previous_row = page, rowid
            if isinstance(raw, bytes):
                raw = raw.decode("utf-8", errors="surrogateescape")
            if not isinstance(raw, str):
                raise InputError(db_path, row, "data", f"page {page!r}: malformed JSON: {type(raw).__name__} value")
            try:
                data = parse_json(raw, db_path, row, "data")
            except InputError as exc:
                raise InputError(db_path, row, "data", f"page {page!r}: {exc.message}") from None
            if not isinstance(data, dict):
                raise InputError(db_path, row, "data", f"page {page!r}: expected a JSON object, got "
                                                       f"{type(data).__name__}")
            yield page_units(page, data, (db_path, row))
            if progress is not None:
                progress(1)
    finally:
        con.close()


def read_id_list(path) -> list[str]:
    """Ids one per line (blank lines and ``#`` comments ignored), in file order, duplicates kept once."""
    out: dict[str, None] = {}
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            text = line.split("#", 1)[0].strip()
            if text:
                out.setdefault(text, None)
    return list(out)


def write_feverous_release(claims_by_split: dict, wiki_db, on_unresolved: str, units_path, documents_path,
                           progress=None) -> dict:
    """Stream the FEVEROUS release into its tables: claims first, then the wiki pages written
    to ``units_path`` / ``documents_path`` in id order (bounded batches), each gold id checked
    against the pages as they pass. Returns the claims table per split; ``wiki_db`` None writes
    empty UNITS/DOCUMENTS. Bad input leaves no corpus table behind."""
    rows = {split: feverous_claim_rows(path) for split, path in claims_by_split.items()}
    pages = iter_feverous_pages(wiki_db, progress) if wiki_db is not None else iter(())
    return write_corpus(pages, DATASET, units_path, documents_path, wanted_gold_ids(rows),
                        resolve=lambda found: claim_tables(rows, found if wiki_db is not None else None,
                                                            on_unresolved))
