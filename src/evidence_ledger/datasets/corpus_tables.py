"""A wiki corpus, page by page, into its UNITS and DOCUMENTS tables in bounded memory.

In:  an iterator of :class:`Page` (one wiki page: doc id, title, document text and its units
     as parallel per-page lists), in the order the rows are to be written (the readers yield
     pages in ``doc_id`` order), and the gold unit ids the claims want.
Out: ``write_corpus``: the two Parquet tables written batch by batch with
     ``tables.TableWriter`` (columns built directly, row groups of ``ROW_GROUP_ROWS`` rows,
     column statistics on, so stages read only the row groups holding the pages they need),
     and the wanted ids that resolved.
Memory: one batch of ``BATCH_UNITS`` units and the wanted / found id sets, whatever the
corpus size.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from ..tables import TableWriter
from ..tables.ingest import DOCUMENTS, UNITS

ROW_GROUP_ROWS = 16384
BATCH_UNITS = ROW_GROUP_ROWS  # one row group of UNITS per batch


@dataclass(slots=True)
class Page:
    """One page of a corpus: DOCUMENTS fields and its units in document order (parallel lists;
    ``kinds`` / ``contexts`` may be a single string shared by every unit of the page)."""

    doc_id: str
    title: str
    text: str
    unit_ids: list
    kinds: list | str
    texts: list
    contexts: list | str


class _Columns:
    """UNITS and DOCUMENTS columns of the pages added since the last :meth:`take`."""

    def __init__(self, dataset: str):
        self.dataset = dataset
        self.clear()

    def clear(self) -> None:
        self.unit_id, self.doc_id, self.kind, self.position, self.text, self.context = [], [], [], [], [], []
        self.doc_doc_id, self.title, self.doc_text = [], [], []

    def add(self, page: Page) -> None:
        n = len(page.unit_ids)
        self.unit_id += page.unit_ids
        self.doc_id += [page.doc_id] * n
        self.kind += [page.kinds] * n if isinstance(page.kinds, str) else page.kinds
        self.position += range(n)
        self.text += page.texts
        self.context += [page.contexts] * n if isinstance(page.contexts, str) else page.contexts
        self.doc_doc_id.append(page.doc_id)
        self.title.append(page.title)
        self.doc_text.append(page.text)

    def units(self) -> dict:
        return {"dataset": [self.dataset] * len(self.unit_id), "unit_id": self.unit_id, "doc_id": self.doc_id,
                "kind": self.kind, "position": self.position, "text": self.text, "context": self.context}

    def documents(self) -> dict:
        return {"dataset": [self.dataset] * len(self.doc_doc_id), "doc_id": self.doc_doc_id, "title": self.title,
                "text": self.doc_text}


def _found(page: Page, wanted, found: set) -> None:
    if wanted:
        found.update(u for u in page.unit_ids if u in wanted)


def write_corpus(pages: Iterable[Page], dataset: str, units_path, documents_path, wanted=frozenset(),
                 resolve: Callable[[set], object] | None = None, batch_units: int = BATCH_UNITS):
    """Write the UNITS and DOCUMENTS rows of ``pages`` (their order) to the two paths.

    Returns ``resolve(found)`` (default: ``found``), ``found`` being the ids of ``wanted``
    that are unit ids of the corpus; ``resolve`` runs before the files are committed.
    Written atomically: an exception while reading the pages (bad input) or in ``resolve``
    (a gold id that does not resolve) leaves neither file behind."""
    found: set = set()
    columns = _Columns(dataset)
    with TableWriter(units_path, UNITS, ROW_GROUP_ROWS) as units, \
            TableWriter(documents_path, DOCUMENTS, ROW_GROUP_ROWS) as documents:
        for page in pages:
            columns.add(page)
            _found(page, wanted, found)
            if len(columns.unit_id) >= batch_units:
                units.write_columns(columns.units())
                documents.write_columns(columns.documents())
                columns.clear()
        units.write_columns(columns.units())
        documents.write_columns(columns.documents())
        result = found if resolve is None else resolve(found)
    return result
