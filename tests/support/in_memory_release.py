"""The FEVER and FEVEROUS releases as in-memory tables, for tests that read them on small files.

The claims go through the readers' own row functions and gold-id resolution
(``fever_claim_rows`` / ``feverous_claim_rows``, ``records.resolve_gold_ids``); the wiki through
the writer the pipeline streams it with (``corpus_tables.write_corpus``, and for a whole release
``write_fever_release`` / ``write_feverous_release``), into a temporary directory and read back.
Each returns what the pipeline's ingest writes: a CLAIMS table (per split), UNITS, DOCUMENTS.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from evidence_ledger.datasets.corpus_tables import write_corpus
from evidence_ledger.datasets.fever import fever_claim_rows, iter_fever_pages, write_fever_release
from evidence_ledger.datasets.feverous import feverous_claim_rows, iter_feverous_pages, write_feverous_release
from evidence_ledger.datasets.records import resolve_gold_ids
from evidence_ledger.tables.ingest import CLAIMS


def _read_back(write) -> tuple[object, pa.Table, pa.Table]:
    """``write(units_path, documents_path)``'s result, and the two tables it wrote."""
    with tempfile.TemporaryDirectory() as tmp:
        units, documents = Path(tmp) / "units.parquet", Path(tmp) / "documents.parquet"
        result = write(units, documents)
        return result, pq.read_table(units), pq.read_table(documents)


def read_fever_claims(path, unit_ids=None, on_unresolved: str = "error") -> pa.Table:
    """A FEVER claims file as a CLAIMS table (file order); gold ids resolved against ``unit_ids``
    (None: kept unchecked)."""
    rows = fever_claim_rows(path)
    resolve_gold_ids(rows, unit_ids, on_unresolved)
    return CLAIMS.from_rows(rows)


def read_feverous_claims(path, unit_ids=None, on_unresolved: str = "error") -> pa.Table:
    """A FEVEROUS claims file as a CLAIMS table, as :func:`read_fever_claims`."""
    rows = feverous_claim_rows(path)
    resolve_gold_ids(rows, unit_ids, on_unresolved)
    return CLAIMS.from_rows(rows)


def read_fever_wiki(wiki, progress=None, allowed_root=None) -> tuple[pa.Table, pa.Table]:
    """(UNITS, DOCUMENTS) of a FEVER ``wiki-pages`` directory, pages in ``doc_id`` order."""
    _, units, documents = _read_back(lambda u, d: write_corpus(iter_fever_pages(wiki, progress, allowed_root),
                                                               "fever", u, d))
    return units, documents


def read_feverous_wiki(db_path, progress=None) -> tuple[pa.Table, pa.Table]:
    """(UNITS, DOCUMENTS) of the FEVEROUS SQLite wiki, pages in id order."""
    _, units, documents = _read_back(lambda u, d: write_corpus(iter_feverous_pages(db_path, progress),
                                                               "feverous", u, d))
    return units, documents


def ingest_fever(claims_by_split: dict, wiki=None, on_unresolved: str = "error", progress=None, data_root=None):
    """(CLAIMS per split, UNITS, DOCUMENTS) of a FEVER release, as the ingest writes them
    (``wiki`` None: claims only, gold ids unchecked)."""
    return _read_back(lambda u, d: write_fever_release(claims_by_split, wiki, on_unresolved, u, d, progress,
                                                       data_root))


def ingest_feverous(claims_by_split: dict, wiki_db=None, on_unresolved: str = "error", progress=None):
    """(CLAIMS per split, UNITS, DOCUMENTS) of a FEVEROUS release, as :func:`ingest_fever`."""
    return _read_back(lambda u, d: write_feverous_release(claims_by_split, wiki_db, on_unresolved, u, d, progress))
