"""File-level entry points of the scoring rules (Study 2 indicator tables).

Each function here is what the job of the rule of its name calls (keyword-only, paths and plain
values):
  score_evidence  EVIDENCE + sample (CLAIMS) -> EVIDENCE_INDICATORS, RELEVANT, eligibility TSV
  score_answers   PARSED + sample (CLAIMS) -> ANSWER_INDICATORS
Scorer semantics: docs/scoring.md; the per-unit indicators: :mod:`.indicators`.
"""
from __future__ import annotations

import logging
from typing import Sequence

from .indicators import score_answer_tables, score_evidence_tables

log = logging.getLogger(__name__)


def score_evidence(
    *,
    evidence: str,
    sample: str,
    indicators: str,
    relevant: str,
    summary: str,
    max_evidence: int,
    max_evidence_cell: int,
    max_sentences: int,
) -> None:
    """Score the evidence of the sampled claims (rows of other claims are set aside and counted)."""
    counts = score_evidence_tables(evidence, sample, indicators, relevant, summary, max_evidence=max_evidence,
                                   max_evidence_cell=max_evidence_cell, max_sentences=max_sentences)
    log.info("%d evidence indicator rows, %d claims in RELEVANT", counts["rows"], counts["claims"])
    if counts["outside_sample"]:
        log.warning("%d evidence rows are for claims outside the sample (e.g. Study 1 claims): not scored here",
                    counts["outside_sample"])


def score_answers(*, parsed: str, sample: str, indicators: str, parsers: Sequence[str]) -> None:
    """Score the parsed answers to the sampled claims, one row per observation and parser."""
    counts = score_answer_tables(parsed, sample, indicators, parsers=parsers)
    log.info("%d answer indicator rows (parsers %s)", counts["rows"], list(parsers))
    if counts["outside_sample"]:
        log.warning("%d parsed answers are for claims outside the sample: not scored", counts["outside_sample"])
