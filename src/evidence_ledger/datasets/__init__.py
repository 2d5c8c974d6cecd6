"""Readers of the official benchmark release formats, one module per benchmark.

Each reader turns the released files into the canonical tables of ``tables.ingest``
(CLAIMS, UNITS, DOCUMENTS) or a per-benchmark table of ``tables.conflict_inputs``. Bad input
raises ``errors.InputError`` naming file, 1-based line and field; gold evidence ids that do
not resolve raise too unless the caller passes ``on_unresolved="count"``, which keeps the ids
and records them in the claim's ``unresolved_ids`` column.
"""
