"""Ingesting one claim benchmark into its canonical tables: CLAIMS per split, UNITS and DOCUMENTS.

In:  a benchmark reader (the registry's ``reader``, e.g. ``fever.ingest_fever``: claim files
     by split + optional corpus -> Arrow tables), the
     release files and the output paths, claim files and claim tables in the order of ``splits``.
Out: the Parquet files (validated by their schemas) and one log line per table.
"""
from __future__ import annotations

import logging
from typing import Callable, Mapping, Sequence

from tqdm import tqdm

from ..tables import write_table
from ..tables.ingest import CLAIMS, DOCUMENTS, UNITS

log = logging.getLogger(__name__)


def write_canonical_tables(claims: Mapping, units, documents, splits: Sequence[str], claim_paths: Sequence[str],
                           units_path: str, documents_path: str) -> None:
    """Write ``claims[split]`` to the matching path of ``claim_paths``, then units and documents."""
    for split, path in zip(splits, claim_paths, strict=True):
        write_table(claims[split], path, CLAIMS)
        log.info("%s: %d claims -> %s", split, claims[split].num_rows, path)
    write_table(units, units_path, UNITS)
    write_table(documents, documents_path, DOCUMENTS)
    log.info("%d units, %d documents", units.num_rows, documents.num_rows)


def write_claim_benchmark(reader: Callable, splits: Sequence[str], claim_files: Sequence[str], corpus,
                          on_unresolved: str, claim_tables: Sequence[str], units_path: str, documents_path: str,
                          progress_desc: str | None = None) -> None:
    """Read a claim benchmark with ``reader(claims_by_split, corpus, on_unresolved)`` and write its tables.

    ``progress_desc``: the reader takes a ``progress`` callable (one call per corpus file or
    page); a tqdm bar with that description counts them on stderr.
    """
    claims_by_split = dict(zip(splits, claim_files))
    if progress_desc is None:
        claims, units, documents = reader(claims_by_split, corpus, on_unresolved)
    else:
        with tqdm(desc=progress_desc, mininterval=30) as bar:
            claims, units, documents = reader(claims_by_split, corpus, on_unresolved, progress=bar.update)
    write_canonical_tables(claims, units, documents, splits, claim_tables, units_path, documents_path)
