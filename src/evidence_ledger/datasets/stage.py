"""The ingest rules, one keyword-only function each (release files in, canonical tables out).

  ingest_fever           FEVER claim jsonl per split (+ wiki-pages directory) -> CLAIMS per split, UNITS, DOCUMENTS
  ingest_feverous        FEVEROUS claim jsonl per split (+ SQLite wiki) -> CLAIMS per split, UNITS, DOCUMENTS
  ingest_scifact         SciFact claim jsonl per split (+ corpus.jsonl) -> CLAIMS per split, UNITS, DOCUMENTS
  ingest_wikicontradict  RAG-QA CSV (+ full JSON) -> WIKICONTRADICT_INSTANCES
  ingest_conflict_qa     NQ-CC / TQA-CC reader-output jsonl -> CONFLICT_QA_RECORDS

``claim_files`` and ``claim_tables`` are in the order of ``splits``; a missing corpus loads
claims only (empty UNITS/DOCUMENTS). ``on_unresolved``: ``error`` or ``count`` (see
``datasets``).
"""
from __future__ import annotations

import functools
import logging
from collections import Counter

from ..tables import write_table
from ..tables.conflict_inputs import CONFLICT_QA_RECORDS, WIKICONTRADICT_INSTANCES
from .canonical_output import ingest_claim_benchmark
from .conflict_qa import read_conflict_qa
from .fever import ingest_fever as read_fever_release
from .feverous import ingest_feverous as read_feverous_release
from .scifact import ingest_scifact as read_scifact_release
from .wikicontradict import read_wikicontradict

log = logging.getLogger(__name__)


def ingest_fever(*, claim_files: list, wiki=None, claim_tables: list, units: str, documents: str,
                 splits: list, on_unresolved: str, data_root=None) -> None:
    """FEVER claims + wiki-pages directory ``wiki`` -> canonical tables. Every file found in the
    wiki-pages directory must resolve inside ``data_root`` (default: that directory)."""
    reader = functools.partial(read_fever_release, data_root=data_root)
    ingest_claim_benchmark(reader, list(splits), claim_files, wiki, on_unresolved, claim_tables,
                           units, documents, progress_desc="wiki files")


def ingest_feverous(*, claim_files: list, wiki=None, claim_tables: list, units: str, documents: str,
                    splits: list, on_unresolved: str) -> None:
    """FEVEROUS claims (incl. the pool) + SQLite wiki ``wiki`` (feverous_wikiv1.db) -> canonical tables."""
    ingest_claim_benchmark(read_feverous_release, list(splits), claim_files, wiki, on_unresolved, claim_tables,
                           units, documents, progress_desc="wiki pages")


def ingest_scifact(*, claim_files: list, corpus=None, claim_tables: list, units: str, documents: str,
                   splits: list, on_unresolved: str) -> None:
    """SciFact claims + ``corpus`` (corpus.jsonl) -> canonical tables."""
    ingest_claim_benchmark(read_scifact_release, list(splits), claim_files, corpus, on_unresolved, claim_tables,
                           units, documents)


def ingest_wikicontradict(*, csv, full_json=None, instances: str, standalone_fields: list) -> None:
    """The RAG-QA ``csv`` (joined with ``full_json`` when given) -> WIKICONTRADICT_INSTANCES ``instances``."""
    table = read_wikicontradict(csv, full_json, tuple(standalone_fields))
    write_table(table, instances, WIKICONTRADICT_INSTANCES)
    log.info("%d instances %s", table.num_rows, dict(Counter(table.column("contradict_type").to_pylist())))


def ingest_conflict_qa(*, jsonl, records: str, dataset: str) -> None:
    """A reader-output ``jsonl`` of ``dataset`` (nqcc or tqacc) -> CONFLICT_QA_RECORDS ``records``."""
    table = read_conflict_qa(jsonl, dataset)
    write_table(table, records, CONFLICT_QA_RECORDS)
    log.info("%s: %d records", dataset, table.num_rows)
