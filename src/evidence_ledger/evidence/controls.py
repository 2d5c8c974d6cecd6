"""Names of the greedy control evidence sources (shared by evidence, generation, scoring and
accounting).

Controls ``none`` and ``gold`` do not depend on an ordering and keep their names. ``swap``
and ``reversed`` are built from *each* ordering source's own evidence (the paper's controls
are defined per source), so their evidence sources are named ``{control}_{source}``, e.g.
``swap_bm25``, ``reversed_bge``.
"""
from __future__ import annotations

CONTROLS = ("none", "swap", "gold", "reversed")
PER_SOURCE_CONTROLS = ("swap", "reversed")


def control_source(control: str, ordering_source: str) -> str:
    """Evidence-source name of ``control`` built from ``ordering_source`` (``swap``, ``bm25``
    -> ``swap_bm25``); ``none`` and ``gold`` are ordering-free and keep their names."""
    if control not in CONTROLS:
        raise ValueError(f"unknown control {control!r}; expected one of {CONTROLS}")
    return f"{control}_{ordering_source}" if control in PER_SOURCE_CONTROLS else control


def control_sources(controls, ordering_sources) -> list[str]:
    """Every control evidence source of ``controls`` x ``ordering_sources`` (config order)."""
    out: list[str] = []
    for c in controls:
        for s in (ordering_sources if c in PER_SOURCE_CONTROLS else [None]):
            name = control_source(c, s) if s is not None else c
            if name not in out:
                out.append(name)
    return out


def control_of(source: str) -> str | None:
    """The control an evidence source belongs to (``swap_bge`` -> ``swap``), or None for an
    ordering / provider source."""
    if source in ("none", "gold"):
        return source
    head, sep, _ = source.partition("_")
    return head if sep and head in PER_SOURCE_CONTROLS else None
