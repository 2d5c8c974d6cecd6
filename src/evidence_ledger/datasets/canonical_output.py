"""Ingesting one claim benchmark into its canonical tables: CLAIMS per split, UNITS and DOCUMENTS.

In:  a benchmark reader (the registry's ``reader``: claim files by split + optional corpus ->
     Arrow tables, e.g. ``scifact.ingest_scifact``; or, for the wikis, a reader that streams
     the corpus tables itself, ``fever.write_fever_release`` / ``feverous.write_feverous_release``), the
     release files and the output paths, claim files and claim tables in the order of ``splits``.
Out: the Parquet files (validated by their schemas) and one log line per table.
"""
from __future__ import annotations

import inspect
import logging
from typing import Callable, Mapping, Sequence

from tqdm import tqdm

from ..tables import write_table
from ..tables.ingest import CLAIMS, DOCUMENTS, UNITS

log = logging.getLogger(__name__)


def write_canonical_tables(claims: Mapping, units, documents, splits: Sequence[str], claim_paths: Sequence[str],
                           units_path: str, documents_path: str) -> None:
    """Write ``claims[split]`` to the matching path of ``claim_paths``, then units and documents."""
    write_claim_tables(claims, splits, claim_paths)
    write_table(units, units_path, UNITS)
    write_table(documents, documents_path, DOCUMENTS)
    log.info("%d units, %d documents", units.num_rows, documents.num_rows)


def write_claim_tables(claims: Mapping, splits: Sequence[str], claim_paths: Sequence[str]) -> None:
    """Write ``claims[split]`` to the matching path of ``claim_paths``."""
    for split, path in zip(splits, claim_paths, strict=True):
        write_table(claims[split], path, CLAIMS)
        log.info("%s: %d claims -> %s", split, claims[split].num_rows, path)


def streams_corpus(reader: Callable) -> bool:
    """True for a reader that writes the corpus tables itself (takes ``units_path`` and
    ``documents_path``, returns the claims table per split): the wiki readers, which stream."""
    return "units_path" in inspect.signature(reader).parameters


def write_claim_benchmark(reader: Callable, splits: Sequence[str], claim_files: Sequence[str], corpus,
                          on_unresolved: str, claim_tables: Sequence[str], units_path: str, documents_path: str,
                          progress_desc: str | None = None) -> None:
    """Read a claim benchmark with ``reader(claims_by_split, corpus, on_unresolved)`` and write its tables.

    A reader returns (claims per split, UNITS, DOCUMENTS), or, when it :func:`streams_corpus`,
    writes UNITS / DOCUMENTS to ``units_path`` / ``documents_path`` itself in bounded memory
    and returns the claims per split. ``progress_desc``: the reader takes a ``progress``
    callable (one call per corpus file or page); a tqdm bar with that description counts them
    on stderr.
    """
    claims_by_split = dict(zip(splits, claim_files))
    kwargs = {"units_path": units_path, "documents_path": documents_path} if streams_corpus(reader) else {}
    if progress_desc is None:
        result = reader(claims_by_split, corpus, on_unresolved, **kwargs)
    else:
        with tqdm(desc=progress_desc, mininterval=30) as bar:
            result = reader(claims_by_split, corpus, on_unresolved, progress=bar.update, **kwargs)
    if kwargs:
        write_claim_tables(result, splits, claim_tables)
        log.info("corpus tables streamed to %s, %s", units_path, documents_path)
    else:
        write_canonical_tables(*result, splits, claim_tables, units_path, documents_path)
