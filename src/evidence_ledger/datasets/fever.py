"""FEVER 1.0 readers: claims jsonl and the ``wiki-pages/*.jsonl`` dump.

In:  ``paper_dev.jsonl`` / ``shared_task_dev.jsonl`` / ``train.jsonl`` records
     ``{id, verifiable, label, claim, evidence}``; evidence = list of groups, each a list of
     ``[annotation_id, evidence_id, page, line]`` (``page``/``line`` null for NOT ENOUGH INFO);
     wiki pages ``{id, text, lines}`` with ``lines`` = ``"i\\tsentence\\tlink\\t..."`` rows
     joined by newlines.
Out: CLAIMS rows (unit ids ``"{page}::{line}"``), UNITS (kind ``sentence``, context = the page
     title with FEVER's bracket escapes undone) and DOCUMENTS (one per page), pages in
     ``doc_id`` order; ``write_fever_release`` streams them to Parquet in bounded memory.
"""
from __future__ import annotations

from array import array
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..benchmark_registry import FEVER
from ..errors import InputError
from ..files.jsonl import JSON_FIELD, parse_json
from ..tables.ingest import CLAIMS, DOCUMENTS, UNITS
from ..vocabulary import fever_unit_id
from .corpus_tables import Page, write_corpus
from .records import check_label, claim_tables, dedupe_groups, inside_root, iter_jsonl, require, wanted_gold_ids

DATASET = "fever"
LABELS = FEVER.labels
NEI = FEVER.nei_label
_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}",
            "-COLON-": ":"}


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


def fever_claim_rows(path) -> list[dict]:
    """CLAIMS rows of a FEVER claims jsonl (file order), ``unresolved_ids`` not yet set.
    Duplicate claim ids raise."""
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
    return rows


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


def _page_locations(files: list[Path], progress=None):
    """Pass 1 over the wiki files: every page's id and where its line starts.

    Returns (ids: Arrow string array, file index, byte offset and 1-based line of each page),
    pages in file/line order; the dump's empty-id record is skipped. Each line is parsed (a
    malformed line or a page without a string ``id`` raises naming file and line); only the
    id and three integers per page are kept.
    """
    chunks, chunk = [], []
    file_index, offsets, lines = array("h"), array("q"), array("q")
    for f, path in enumerate(files):
        offset = 0
        with path.open("rb") as handle:
            for line, raw in enumerate(handle, start=1):
                start, offset = offset, offset + len(raw)
                if not raw.strip():
                    continue
                rec = _page_record(raw, path, line)
                page = require(rec, "id", str, path, line)
                if page == "":
                    continue
                chunk.append(page)
                file_index.append(f)
                offsets.append(start)
                lines.append(line)
                if len(chunk) >= 65536:
                    chunks.append(pa.array(chunk, pa.string()))
                    chunk = []
        if progress is not None:
            progress(1)
    chunks.append(pa.array(chunk, pa.string()))
    ids = pa.chunked_array(chunks, pa.string()).combine_chunks()
    return ids, np.frombuffer(file_index, np.int16), np.frombuffer(offsets, np.int64), np.frombuffer(lines, np.int64)


def _page_record(raw: bytes, path, line: int) -> dict:
    """One wiki line (bytes) as a JSON object, errors as ``iter_jsonl`` words them."""
    rec = parse_json(raw.decode("utf-8", errors="surrogateescape"), path, line)
    if not isinstance(rec, dict):
        raise InputError(path, line, JSON_FIELD, f"expected a JSON object, got {type(rec).__name__}")
    return rec


def _check_unique(ids: pa.Array, order: np.ndarray, files, file_index, lines) -> None:
    """Raise on a page id seen twice (the second occurrence in file/line order named, the
    earliest such one if several); ``order`` sorts ``ids`` stably."""
    if len(order) < 2:
        return
    sorted_ids = ids.take(pa.array(order))
    same = pc.equal(sorted_ids.slice(1), sorted_ids.slice(0, len(order) - 1)).to_numpy(zero_copy_only=False)
    dup = np.flatnonzero(same)
    if dup.size:
        k = dup[np.argmin(order[dup + 1])]
        first, second = order[k], order[k + 1]
        page = sorted_ids[int(k)].as_py()
        raise InputError(files[file_index[second]], int(lines[second]), "id",
                         f"duplicate page id {page!r} (first at {files[file_index[first]]}:{lines[first]})")


def iter_fever_pages(wiki, progress=None, allowed_root=None) -> Iterator[Page]:
    """The pages of ``wiki-pages`` (directory of jsonl files, or one file) in ``doc_id`` order.

    Two passes in bounded memory: the first records every page's id and location (and checks
    that no page id is seen twice: ``InputError`` naming the second occurrence and the first);
    the second reads the pages again, line by line, in id order. Pages with an empty id (the
    dump's first record) are skipped; units are the non-empty sentences in line order.
    ``progress``: called with 1 after each wiki file of the first pass. ``allowed_root``: see
    :func:`wiki_files`.
    """
    files = wiki_files(wiki, allowed_root)
    ids, file_index, offsets, lines = _page_locations(files, progress)
    order = pc.sort_indices(ids).to_numpy()
    _check_unique(ids, order, files, file_index, lines)
    del ids
    handles = [path.open("rb") for path in files]
    try:
        for i in order:
            f, line = int(file_index[i]), int(lines[i])
            path, handle = files[f], handles[f]
            handle.seek(int(offsets[i]))
            rec = _page_record(handle.readline(), path, line)
            page = rec["id"]
            title = page_title(page)
            sentences = parse_lines(require(rec, "lines", str, path, line), path, line)
            yield Page(doc_id=page, title=title, text=" ".join(s for _, s in sentences),
                       unit_ids=[fever_unit_id(page, n) for n, _ in sentences], kinds="sentence",
                       texts=[s for _, s in sentences], contexts=title)
    finally:
        for handle in handles:
            handle.close()


def write_fever_release(claims_by_split: dict, wiki, on_unresolved: str, units_path, documents_path,
                        progress=None, data_root=None) -> dict:
    """Stream the FEVER release into its tables: the claims are read first, then the wiki pages
    are written to ``units_path`` / ``documents_path`` in ``doc_id`` order (bounded batches),
    each gold id checked against the pages as they pass. Returns the claims table per split.
    ``wiki`` None writes empty UNITS/DOCUMENTS (claims-only load). A bad page or an unresolved
    gold id (``on_unresolved="error"``) raises and leaves no corpus table behind."""
    rows = {split: fever_claim_rows(path) for split, path in claims_by_split.items()}
    pages = iter_fever_pages(wiki, progress, data_root) if wiki is not None else iter(())
    return write_corpus(pages, DATASET, units_path, documents_path, wanted_gold_ids(rows),
                        resolve=lambda found: claim_tables(rows, found if wiki is not None else None, on_unresolved))
