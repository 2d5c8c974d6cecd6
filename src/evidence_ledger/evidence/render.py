"""Rendering of evidence units into the evidence text a model sees.

Format (one unit per line, units joined by a single newline, in evidence order)::

    [CONTEXT] TEXT

where CONTEXT is the unit's context from the units table (FEVER / SciFact: page or
abstract title; FEVEROUS: page title, section and, for cells, the table headers, joined by
" | ") and is left out together with its brackets when empty. Whitespace runs (including
newlines and tabs) inside CONTEXT and TEXT are collapsed to one space so that each unit
stays on one line. No evidence renders as the empty string.
"""
from __future__ import annotations

import re

_WS = re.compile(r"\s+")
UNIT_SEPARATOR = "\n"


def render_unit(text: str, context: str) -> str:
    """One unit as one line: ``[context] text`` (``text`` alone when context is empty)."""
    text = _WS.sub(" ", text or "").strip()
    context = _WS.sub(" ", context or "").strip()
    return f"[{context}] {text}" if context else text


def render_evidence(lines: list[str]) -> str:
    """Join rendered unit lines into the evidence text."""
    return UNIT_SEPARATOR.join(lines)
