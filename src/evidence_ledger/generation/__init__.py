"""LLM generation for Study 2 (and reusable by the conflict stages).

Modules: ``prompts`` (versioned templates), ``requests`` (request table, seeds, de-dup),
``backends`` (transformers / vLLM behind one interface), ``cache`` (sha256-keyed Parquet
response cache, resume-safe), ``run`` (responses of one model x dataset shard),
``tiny_models`` (locally built demo chat models), ``planner`` (the ``plan`` command).
"""
