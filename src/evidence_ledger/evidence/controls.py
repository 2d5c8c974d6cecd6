"""The greedy control evidence sources, as the evidence stage names them.

In:  nothing. Out: the names of ``evidence_ledger.vocabulary`` (where they are defined, since
scoring, generation and accounting share them): :data:`CONTROLS`, :data:`PER_SOURCE_CONTROLS`,
:func:`control_source`, :func:`control_sources`, :func:`control_of`.

Controls ``none`` and ``gold`` do not depend on an ordering and keep their names. ``swap``
and ``reversed`` are built from *each* ordering source's own evidence (the paper's controls
are defined per source), so their evidence sources are named ``{control}_{source}``, e.g.
``swap_bm25``, ``reversed_bge``.
"""
from __future__ import annotations

from ..vocabulary import CONTROLS, PER_SOURCE_CONTROLS, control_of, control_source, control_sources

__all__ = ["CONTROLS", "PER_SOURCE_CONTROLS", "control_of", "control_source", "control_sources"]
