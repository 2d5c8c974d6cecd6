"""Evidence stage: what each (claim[, abstract], source, budget) shows a model and submits to a scorer.

Modules:
  render     - the documented text format of evidence units (one line per unit, with context)
  budget     - token-budgeted assembly under several tokenizers at once
  prefix     - the scored prefix of visible evidence (per-benchmark caps)
  assemble   - EVIDENCE rows for orderings and the greedy controls (none, swap, gold, reversed)
  providers  - provider submissions (FEVEROUS / FEVER formats): import as sources, export orderings
  diagnostics- gold recall of pools and of each (source, budget), coverage, cap hits, misses
"""
