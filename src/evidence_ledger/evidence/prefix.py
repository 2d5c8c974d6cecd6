"""The scored prefix: the part of the visible evidence submitted to a scorer.

In:  visible unit ids in order, their kinds, and the benchmark's caps.
Out: the unit ids submitted for scoring, in visible order.

Caps (config ``evidence.scored_prefix``): FEVER 5 sentences; FEVEROUS 5 non-cell units
(sentences, and any other kind not cell-like) and 25 cell-like units (kinds ``cell``,
``item``, ``table_caption``, ``header_cell``), counted separately as the official FEVEROUS
scorer does; SciFact 3 sentences of the abstract. Walking the visible units in order, a
unit is kept while its category's count is below the cap; when no cell cap is given
(``cell`` is None) every unit counts against the single ``non_cell`` cap.
"""
from __future__ import annotations

from ..vocabulary import FEVEROUS_CELL_LIKE_TYPES as CELL_LIKE_KINDS


def scored_prefix(unit_ids: list[str], kinds: list[str], non_cell: int, cell: int | None = None,
                  cell_like_kinds=CELL_LIKE_KINDS) -> list[str]:
    """Unit ids submitted to the scorer (see module doc); ``kinds`` parallels ``unit_ids``."""
    if len(unit_ids) != len(kinds):
        raise ValueError(f"{len(unit_ids)} unit ids but {len(kinds)} kinds")
    cell_like = set(cell_like_kinds)
    kept = []
    n_other = n_cell = 0
    for uid, kind in zip(unit_ids, kinds):
        if cell is not None and kind in cell_like:
            if n_cell < cell:
                kept.append(uid)
                n_cell += 1
        elif n_other < non_cell:
            kept.append(uid)
            n_other += 1
    return kept
