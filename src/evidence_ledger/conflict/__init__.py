"""Knowledge-conflict benchmarks: WikiContradict (templates, LLM judge, metrics) and the
generated-vs-retrieved context-merge evaluation (DiffGR on NQ-CC / TQA-CC).

Modules:
* ``wikicontradict``: prompt templates as versioned data and prompt rendering.
* ``judge``: the WikiContradictEval few-shot judge prompt and its strict output parser.
* ``wikicontradict_metrics``: per model x template rates, conflict detection, judge agreement.
* ``diffgr_pipeline``: reader prompts for the four reader runs, length control, CC sets and
  DiffGR with bootstrap intervals (scoring rules from ``evidence_ledger.scoring.diffgr``).
"""
