"""Writing one benchmark's canonical tables: CLAIMS per split, UNITS and DOCUMENTS.

In:  the readers' output (claims by split, units, documents as Arrow tables) and the output
     paths, claim paths in the order of ``splits``.
Out: the Parquet files (validated by their schemas) and one log line per table.
"""
from __future__ import annotations

import logging
from typing import Mapping, Sequence

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
