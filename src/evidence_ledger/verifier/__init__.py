"""Study 1 trained verifier (DeBERTa-MNLI fine-tuned on FEVEROUS), one module per step.

  ``serialise``   (claim, provider candidate ids) -> at most 512 tokens; VERIFIER_INPUTS.
  ``labels``      MNLI head <-> SUPPORTS / REFUTES / NOT ENOUGH INFO; trained label set.
  ``train``       one checkpoint: plain PyTorch loop, all parameters, seeded data order.
  ``predict``     fixed weights -> VERIFIER_ANSWERS (label + class probabilities).
  ``indicators``  answers + provider evidence -> ANSWER/EVIDENCE_INDICATORS, RELEVANT,
                  per-claim unresolved flags (rules from ``evidence_ledger.scoring``).
  ``summary``     inputs / training / answer-share diagnostics (report TSV).
"""
