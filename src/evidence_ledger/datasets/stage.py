"""The ingest rules, one keyword-only function each (release files in, canonical tables out).

  ingest_claim_benchmark the rules ingest_<benchmark> (one per registered benchmark: fever,
                         feverous, scifact, plugins): claim jsonl per split (+ corpus) ->
                         CLAIMS per split, UNITS, DOCUMENTS, through the registry's reader
  ingest_wikicontradict  RAG-QA CSV (+ full JSON) -> WIKICONTRADICT_INSTANCES
  ingest_conflict_qa     NQ-CC / TQA-CC reader-output jsonl -> CONFLICT_QA_RECORDS

``claim_files`` and ``claim_tables`` are in the order of ``splits``; a missing corpus loads
claims only (empty UNITS/DOCUMENTS). ``on_unresolved``: ``error`` or ``count`` (see
``datasets``).
"""
from __future__ import annotations

import inspect
import logging
from collections import Counter
from pathlib import Path

from ..tables import write_table
from ..tables.conflict_inputs import CONFLICT_QA_RECORDS, WIKICONTRADICT_INSTANCES
from ..benchmark_registry import benchmark_reader
from .canonical_output import write_claim_benchmark
from .conflict_qa import read_conflict_qa
from .records import inside_root
from .wikicontradict import read_wikicontradict

log = logging.getLogger(__name__)


def ingest_claim_benchmark(*, benchmark: str, claim_files: list, corpus=None, claim_tables: list, units: str,
                           documents: str, splits: list, on_unresolved: str, data_root=None) -> None:
    """Claims (one file per split, in ``splits`` order) + optional ``corpus`` of the registered
    benchmark ``benchmark`` -> CLAIMS per split, UNITS, DOCUMENTS, read by the registry's reader.

    Every file found inside a corpus directory (e.g. FEVER's wiki-pages) must resolve, symlinks
    followed, inside ``data_root`` (default: the directory itself), else ``InputError`` naming it.
    """
    if corpus is not None and Path(corpus).is_dir():
        root = Path(data_root if data_root is not None else corpus)
        for path in sorted(Path(corpus).rglob("*")):
            inside_root(path, root)
    reader = benchmark_reader(benchmark)
    takes_progress = "progress" in inspect.signature(reader).parameters
    write_claim_benchmark(reader, list(splits), claim_files, corpus, on_unresolved, claim_tables, units, documents,
                          progress_desc=f"{benchmark} corpus" if takes_progress else None)


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
