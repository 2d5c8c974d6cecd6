"""The item explorer's data: ITEMS and ITEM_TEXTS read batch by batch into compressed payloads.

In:  one ITEMS table and the ITEM_TEXTS table written beside it (``tables.items``: a "part" of the
     page, e.g. ``results/accounting/study1/``), read in batches of :data:`BATCH_ROWS` rows.
Out: :class:`Payload` objects, each a JSON document compressed with gzip and escaped for an HTML
     page in windows-1252 (:func:`escaped`: the page decodes it and decompresses it with the
     browser's ``DecompressionStream`` when it needs it), and the index entries that say what
     each holds:

* one per comparison: its items' columns (``item_id``, ``gold``, the answer, eligibility and
  evidence scores, the cells, the component shares, ``pattern``, the per-run cells), NaN as null;
* one per chunk of a dataset's items (about :data:`CHUNK_TEXT_BYTES` of text): every evidence and
  answer text of those items, each distinct text once, whichever comparisons show it (a claim's
  evidence is shared by every model and format of its budget), and per text row its item, kind,
  system, format, source, budget and replicate;
* one per dataset: its items' ids, their claim texts and the chunk that holds each item's texts.

A group (a comparison, a chunk) is compressed as soon as its last row is read, so memory holds
the groups still open: one or two when the writer groups its rows by comparison and item (as the
accounting writes them), whatever the size of the table. Numbers are written as Python's
``repr`` (the shortest text that reads back as the same float), so the page's signs and sums are
the table's.
"""
from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..tables import TableSchema, check_table_file, damaged_table, read_parquet
from ..tables.items import ITEM_CELLS, ITEM_COMPONENTS, ITEM_TEXTS, ITEMS, TEXT_KINDS

BATCH_ROWS = 16_384
CHUNK_TEXT_BYTES = 256 * 1024  # the texts one opened item decompresses with its neighbours
#: the fields that name a comparison, constant over its items (shown by the page's selectors)
COMPARISON_COLUMNS = ("study", "dataset", "system", "format", "parser", "budget", "source0", "source1")
#: the per-item columns of a comparison's payload, in the order the page shows them
ITEM_NUMBERS = ("answer_0", "answer_1", "eligible_0", "eligible_1", "evidence_0", "evidence_1") + ITEM_CELLS \
    + ITEM_COMPONENTS
ITEM_STRINGS = ("item_id", "family_id", "gold", "pattern")
RUN_COLUMNS = tuple(f"run_{cell}" for cell in ITEM_CELLS)
#: the fields of a text row besides its item and its text
TEXT_FIELDS = ("kind", "system", "format", "source", "budget")


#: the bytes a payload cannot hold as they are: NUL and CR (the HTML parser replaces them), ``<``
#: (it could end the script element) and the escape byte itself
ESCAPED_BYTES = re.compile(rb"[\x00\r<=]")
ESCAPE = b"="


@dataclass(frozen=True)
class Payload:
    """One compressed JSON document of the page: ``name`` its element id, ``data`` its bytes as
    :func:`escaped` writes them."""

    name: str
    data: bytes


def escaped(data: bytes) -> bytes:
    """``data`` with each byte of :data:`ESCAPED_BYTES` written as ``=`` and the byte plus 64
    (mod 256), as yEnc escapes: about 1.6% longer for compressed data, where base64 is 33%
    longer. A page in windows-1252 holds the result in a script element, every byte one
    character (the encoding maps each of the 256 bytes to its own character), and the page's
    script turns the characters back into bytes."""
    return ESCAPED_BYTES.sub(lambda m: ESCAPE + bytes([(m.group()[0] + 64) % 256]), data)


def packed(document) -> bytes:
    """``document`` as JSON (UTF-8, no NaN), gzip-compressed (level 6: level 9 saves 1% of a
    paper-size page in 2.4 times the time; no timestamp: the same document gives the same bytes)
    and :func:`escaped`."""
    raw = json.dumps(document, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    return escaped(gzip.compress(raw, compresslevel=6, mtime=0))


def table_batches(path, schema: TableSchema, columns: list[str] | None = None) -> Iterator[pa.Table]:
    """The rows of table ``schema`` at ``path`` (checked first) in batches of
    :data:`BATCH_ROWS`, file order; ``columns``: those read (default all)."""
    check_table_file(path, schema)
    parquet = read_parquet(Path(path), schema, pq.ParquetFile)
    batches = parquet.iter_batches(batch_size=BATCH_ROWS, columns=columns or schema.columns)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (pa.ArrowException, OSError) as err:  # a damaged page found while reading
            raise damaged_table(path, schema, err) from err
        yield pa.Table.from_batches([batch])


def completed_groups(batches: Iterable[pa.Table], group_of: Callable[[pa.Table], np.ndarray],
                     sizes: Mapping[int, int]) -> Iterator[tuple[int, pa.Table]]:
    """``(group, its rows)`` of each group as soon as its last row is read: ``group_of(batch)``
    gives each row's group, ``sizes`` each group's number of rows (counted by a first pass).
    The rows of a group keep file order."""
    pending: dict[int, list[pa.Table]] = {}
    seen: dict[int, int] = {}
    for batch in batches:
        groups = np.asarray(group_of(batch))
        if np.all(groups[1:] >= groups[:-1]):  # rows grouped in order (as written): slices, no copy
            ordered, sorted_groups = batch, groups
        else:
            order = np.argsort(groups, kind="stable")
            ordered, sorted_groups = batch.take(pa.array(order)), groups[order]
        values, starts = np.unique(sorted_groups, return_index=True)
        for group, start, end in zip(values.tolist(), starts.tolist(), starts[1:].tolist() + [len(groups)]):
            pending.setdefault(group, []).append(ordered.slice(start, end - start))
            seen[group] = seen.get(group, 0) + end - start
            if seen[group] == sizes[group]:
                yield group, pa.concat_tables(pending.pop(group))


def json_numbers(values: np.ndarray) -> list:
    """Floats as a JSON-ready list, NaN as None."""
    values = np.asarray(values, dtype=np.float64)
    return np.where(np.isnan(values), None, values).tolist()


def constant_fields(rows: pa.Table, columns: Iterable[str], what: str) -> dict[str, str]:
    """``column -> its one value`` over ``rows``; a column with two values raises ValueError."""
    fields = {}
    for column in columns:
        values = pc.unique(rows[column]).to_pylist()
        if len(values) != 1:
            raise ValueError(f"{what}: column {column!r} takes {len(values)} values ({values[:3]}), not one")
        fields[column] = values[0]
    return fields


def item_columns(rows: pa.Table, what: str) -> dict[str, list]:
    """One comparison's items as columns (:data:`ITEM_STRINGS`, ``runs``, :data:`ITEM_NUMBERS`,
    the per-run cells as lists); an item twice, or a per-run list whose length is not ``runs``,
    raises ValueError naming the first such item."""
    ids = rows["item_id"].to_pylist()
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        twice = next(i for i in ids if i in seen or seen.add(i))
        raise ValueError(f"{what}: item {twice!r} is listed twice")
    runs = rows["runs"].to_numpy()
    columns: dict[str, list] = {name: rows[name].to_pylist() for name in ITEM_STRINGS}
    columns["runs"] = runs.tolist()
    columns.update({name: json_numbers(rows[name].to_numpy(zero_copy_only=False)) for name in ITEM_NUMBERS})
    for name in RUN_COLUMNS:
        lengths = pc.list_value_length(rows[name]).to_numpy(zero_copy_only=False)
        wrong = np.flatnonzero(lengths != runs)
        if wrong.size:
            raise ValueError(f"{what}: item {ids[wrong[0]]!r} has {lengths[wrong[0]]} values in {name} "
                             f"but runs {runs[wrong[0]]}")
        flat = json_numbers(pc.list_flatten(rows[name]).to_numpy(zero_copy_only=False))
        bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
        columns[name] = [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    return columns


def comparison_payloads(path, prefix: str) -> Iterator[tuple[dict, Payload]]:
    """``(index entry, payload)`` of each comparison of the ITEMS table at ``path``: the entry
    holds its key, :data:`COMPARISON_COLUMNS`, its number of items and its payload's name
    (``<prefix>c<i>``). A comparison whose naming columns vary, or that lists an item twice,
    raises ValueError naming the file."""
    sizes: dict[str, int] = {}
    for batch in table_batches(path, ITEMS, ["comparison"]):
        for key in batch["comparison"].to_pylist():
            sizes[key] = sizes.get(key, 0) + 1
    number = {key: i for i, key in enumerate(sizes)}
    for group, rows in completed_groups(table_batches(path, ITEMS),
                                        lambda b: np.array([number[k] for k in b["comparison"].to_pylist()]),
                                        {number[k]: n for k, n in sizes.items()}):
        key = rows["comparison"][0].as_py()
        what = f"{path}: comparison {key!r}"
        name = f"{prefix}c{group}"
        entry = {"key": key, **constant_fields(rows, COMPARISON_COLUMNS, what), "items": rows.num_rows,
                 "payload": name}
        yield entry, Payload(name, packed(item_columns(rows, what)))


@dataclass
class TextItems:
    """What the first pass over an ITEM_TEXTS table learns, per (dataset, item) in order of first
    appearance: its position within its dataset, its chunk and its number of rows."""

    position: dict[tuple[str, str], int]
    chunk: dict[tuple[str, str], int]
    rows: dict[tuple[str, str], int]
    datasets: dict[str, list[str]]  # dataset -> its item ids, by position
    chunks: list[str]  # chunk -> its dataset

    def chunk_sizes(self) -> dict[int, int]:
        sizes: dict[int, int] = {}
        for key, n in self.rows.items():
            sizes[self.chunk[key]] = sizes.get(self.chunk[key], 0) + n
        return sizes


def text_items(path, chunk_bytes: int = CHUNK_TEXT_BYTES) -> TextItems:
    """The first pass over the ITEM_TEXTS table at ``path``: each item's rows and text bytes,
    and its chunk: a dataset's items in order of first appearance, a new chunk where the texts
    (claims aside, which the dataset's payload holds) would pass ``chunk_bytes``. A ``kind``
    outside ``TEXT_KINDS`` raises ValueError naming the file."""
    rows: dict[tuple[str, str], int] = {}
    text_bytes: dict[tuple[str, str], int] = {}
    for batch in table_batches(path, ITEM_TEXTS, ["dataset", "item_id", "kind", "text"]):
        kinds = set(pc.unique(batch["kind"]).to_pylist())
        if not kinds <= set(TEXT_KINDS):
            raise ValueError(f"{path}: kind {sorted(kinds - set(TEXT_KINDS))[0]!r} is not one of "
                             f"{', '.join(TEXT_KINDS)}")
        lengths = pc.binary_length(batch["text"]).to_pylist()
        for key, kind, n in zip(zip(batch["dataset"].to_pylist(), batch["item_id"].to_pylist()),
                                batch["kind"].to_pylist(), lengths):
            rows[key] = rows.get(key, 0) + 1
            text_bytes[key] = text_bytes.get(key, 0) + (0 if kind == "claim" else n)
    datasets: dict[str, list[str]] = {}
    for dataset, item in rows:
        datasets.setdefault(dataset, []).append(item)
    position, chunk, chunks = {}, {}, []
    for dataset, items in datasets.items():
        filled = None  # a dataset starts a new chunk
        for i, item in enumerate(items):
            size = text_bytes[(dataset, item)]
            if filled is None or (filled > 0 and filled + size > chunk_bytes):
                chunks.append(dataset)
                filled = 0
            filled += size
            position[(dataset, item)], chunk[(dataset, item)] = i, len(chunks) - 1
    return TextItems(position, chunk, rows, datasets, chunks)


def chunk_document(rows: pa.Table, positions: list[int]) -> dict:
    """A chunk's payload: the rows that are not claims, sorted by item, kind, source, budget,
    system, format and replicate (an item's texts side by side, so the compression finds a short
    budget's text inside the long one's), each distinct text and field value once."""
    fields = {name: rows[name].to_pylist() for name in TEXT_FIELDS + ("replicate", "text")}
    order = sorted((j for j, kind in enumerate(fields["kind"]) if kind != "claim"),
                   key=lambda j: (positions[j], fields["kind"][j], fields["source"][j], fields["budget"][j],
                                  fields["system"][j], fields["format"][j], fields["replicate"][j]))
    labels: dict[str, int] = {}
    texts: dict[str, int] = {}
    columns: dict[str, list] = {"item": [positions[j] for j in order],
                                "replicate": [fields["replicate"][j] for j in order],
                                "text": [texts.setdefault(fields["text"][j], len(texts)) for j in order]}
    for name in TEXT_FIELDS:
        columns[name] = [labels.setdefault(fields[name][j], len(labels)) for j in order]
    return {"labels": list(labels), "texts": list(texts), "rows": columns}


def text_payloads(path, prefix: str, chunk_bytes: int = CHUNK_TEXT_BYTES) -> Iterator[tuple[dict, Payload]]:
    """``(index entry, payload)`` of the ITEM_TEXTS table at ``path``: first each chunk's
    (entry ``{"chunk": i, "dataset": d, "payload": name}``), then each dataset's (entry
    ``{"dataset": d, "items": n, "payload": name, "chunks": [chunk payload names]}``: its items'
    ids, their claim texts, and the index of each item's chunk among ``chunks``)."""
    found = text_items(path, chunk_bytes)
    claims: dict[tuple[str, str], list[str]] = {}
    chunk_names = [f"{prefix}t{i}" for i in range(len(found.chunks))]

    def chunk_of(batch: pa.Table) -> np.ndarray:
        keys = zip(batch["dataset"].to_pylist(), batch["item_id"].to_pylist())
        return np.fromiter((found.chunk[k] for k in keys), dtype=np.int64, count=batch.num_rows)

    for chunk, rows in completed_groups(table_batches(path, ITEM_TEXTS), chunk_of, found.chunk_sizes()):
        keys = list(zip(rows["dataset"].to_pylist(), rows["item_id"].to_pylist()))
        for key, kind, text in zip(keys, rows["kind"].to_pylist(), rows["text"].to_pylist()):
            if kind == "claim" and text not in claims.setdefault(key, []):
                claims[key].append(text)
        yield ({"chunk": chunk, "dataset": found.chunks[chunk], "payload": chunk_names[chunk]},
               Payload(chunk_names[chunk], packed(chunk_document(rows, [found.position[k] for k in keys]))))
    for d, (dataset, items) in enumerate(found.datasets.items()):
        mine = [i for i, owner in enumerate(found.chunks) if owner == dataset]
        document = {"item_id": items, "claims": [claims.get((dataset, item), []) for item in items],
                    "chunk": [found.chunk[(dataset, item)] - mine[0] for item in items]}
        name = f"{prefix}d{d}"
        yield ({"dataset": dataset, "items": len(items), "payload": name,
                "chunks": [chunk_names[i] for i in mine]}, Payload(name, packed(document)))
