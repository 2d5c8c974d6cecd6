"""Sampling stage: the Study 2 claim populations and the claim families they are drawn against.

Modules:
  families - claim families: union-find over claims with a saved reason for every link
  sample   - deterministic hash selection of the claims, reserved-family exclusion
  stage    - the rule functions build_families and sample_claims
"""
