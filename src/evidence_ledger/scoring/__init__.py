"""Scorers with the official semantics, one module per benchmark, plus per-unit indicators.

Modules:
  ``fever``      sheffieldnlp/fever-scorer ``fever_score`` (first 5 evidence items).
  ``feverous``   Raldir/FEVEROUS ``feverous_score`` (5 non-cell + 25 cell-like items).
  ``scifact``    allenai/scifact(-evaluator) abstract- and sentence-level P/R/F1.
  ``kilt``       facebookresearch/KILT ``eval_downstream`` / ``eval_retrieval`` (per item and per
                 file), with ``kilt_files`` (reading; the prediction file as a stream paired
                 by id), ``kilt_answers`` (accuracy, EM, F1, ROUGE-L of one answer),
                 ``kilt_retrieval`` (R-precision, @k metrics) and ``rouge_l`` (the ``rouge``
                 package's ROUGE-L).
  ``diffgr``     Tan-Hexiang/RetrieveOrGenerated context-conflicting sets and DiffGR.
  ``indicators`` central tables (CLAIMS, EVIDENCE, PARSED) -> EVIDENCE_INDICATORS,
                 ANSWER_INDICATORS, RELEVANT, the per-unit rows accounting crosses.
  ``cli``        ``python -m evidence_ledger score {fever,feverous,scifact,kilt,diffgr}``.

Every scorer is a set of small pure functions on plain Python values; the readers of
official submission files live in ``records`` and raise
:class:`evidence_ledger.errors.InputError` naming file, line and field.
"""
