"""Scorers with the official semantics, one module per benchmark, plus per-unit indicators.

Modules:
  ``fever``      sheffieldnlp/fever-scorer ``fever_score`` (first 5 evidence items).
  ``feverous``   Raldir/FEVEROUS ``feverous_score`` (5 non-cell + 25 cell-like items).
  ``scifact``    allenai/scifact(-evaluator) abstract- and sentence-level P/R/F1.
  ``diffgr``     Tan-Hexiang/RetrieveOrGenerated context-conflicting sets and DiffGR.
  ``indicators`` central tables (CLAIMS, EVIDENCE, PARSED) -> EVIDENCE_INDICATORS,
                 ANSWER_INDICATORS, RELEVANT, the per-unit rows accounting crosses.
  ``cli``        ``python -m evidence_ledger score {fever,feverous,scifact,diffgr}``.

Every scorer is a set of small pure functions on plain Python values; the readers of
official submission files live in ``records`` and raise
:class:`evidence_ledger.errors.InputError` naming file, line and field.
"""
