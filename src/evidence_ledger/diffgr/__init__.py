"""DiffGR: the generated-vs-retrieved context-merge evaluation on NQ-CC / TQA-CC.

Modules:
* ``reader_setup``: the official random context orders and the readers' system messages.
* ``pipeline``: reader prompts for the four reader runs, length control, CC sets and DiffGR
  with bootstrap intervals (scoring rules from ``evidence_ledger.scoring.diffgr``).
* ``stage``: the rule functions (``workflow/rules/diffgr.smk``).
"""
