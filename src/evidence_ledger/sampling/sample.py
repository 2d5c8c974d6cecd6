"""Deterministic claim populations for Study 2.

In:  a CLAIMS table, a salt and a sample size; for FEVEROUS also the claim families of the
     pool (FAMILIES) and the reserved claim ids.
Out: the selected CLAIMS rows (in their source order) and a summary dict.

Hash selection: rank every claim by ``sha256(f"{salt}:{claim_id}")`` (hex digest, ties by
claim id) and keep the ``n`` smallest; ``n`` None or larger than the population keeps all
(the summary reports requested vs selected). Reserved-family exclusion: every claim whose
family contains a reserved id is ineligible (reserved claims included); reserved ids that
are not in the family table are counted as ``reserved_not_found``.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from typing import Iterable

import pandas as pd
import pyarrow as pa


def hash_rank_key(salt: str, claim_id: str) -> str:
    """Hex sha256 of ``f"{salt}:{claim_id}"`` (the sort key of hash selection)."""
    return hashlib.sha256(f"{salt}:{claim_id}".encode("utf-8")).hexdigest()


def select_by_hash(claim_ids: Iterable[str], salt: str, n: int | None) -> list[str]:
    """The ``n`` claim ids with the smallest hash keys (all when ``n`` is None or >= population),
    in hash order."""
    ranked = sorted(set(claim_ids), key=lambda cid: (hash_rank_key(salt, cid), cid))
    return ranked if n is None else ranked[:n]


def reserved_family_members(families: dict[str, str], reserved_ids: Iterable[str]) -> tuple[set[str], list[str]]:
    """(claim ids in any family that holds a reserved id, reserved ids missing from ``families``)."""
    reserved = list(dict.fromkeys(reserved_ids))
    missing = [r for r in reserved if r not in families]
    bad_families = {families[r] for r in reserved if r in families}
    members = {cid for cid, fid in families.items() if fid in bad_families}
    return members | set(reserved), missing


def sample_claims(claims: pa.Table, salt: str, n: int | None, method: str = "hash",
                  families: dict[str, str] | None = None, reserved_ids: Iterable[str] = ()) -> tuple[pa.Table, dict]:
    """Select the study population from ``claims``.

    ``method``: ``"hash"`` (smallest-n sha256 keys) or ``"all"`` (every claim; salt/n unused).
    With ``families`` given, claims in reserved families are removed before selection.
    The output keeps the input's row order, so reruns give identical tables.
    """
    if method not in ("hash", "all"):
        raise ValueError(f"sampling method must be 'hash' or 'all', got {method!r}")
    ids = claims.column("claim_id").to_pylist()
    excluded: set[str] = set()
    missing: list[str] = []
    reserved = list(dict.fromkeys(reserved_ids))
    if reserved:
        if families is None:
            raise ValueError("reserved ids given without a family table: families are needed to exclude them")
        excluded, missing = reserved_family_members(families, reserved)
    eligible = [cid for cid in ids if cid not in excluded]
    chosen = set(eligible if method == "all" else select_by_hash(eligible, salt, n))
    mask = pa.array([cid in chosen for cid in ids])
    sample = claims.filter(mask)
    summary = {
        "dataset": claims.column("dataset")[0].as_py() if claims.num_rows else "",
        "method": method,
        "salt": salt if method == "hash" else "",
        "population": len(ids),
        "reserved_ids": len(reserved),
        "reserved_not_found": len(missing),
        "excluded_by_reserved_families": sum(1 for cid in ids if cid in excluded),
        "eligible": len(eligible),
        "requested": -1 if (n is None or method == "all") else int(n),
        "selected": sample.num_rows,
        "all_selected": sample.num_rows == len(eligible),
    }
    for label, count in sorted(Counter(sample.column("label").to_pylist()).items()):
        summary[f"label:{label}"] = count
    return sample, summary


def summary_table(summary: dict) -> pd.DataFrame:
    """The summary as a two-column ``key``, ``value`` report table (insertion order, values as
    text, booleans lower-case)."""
    return pd.DataFrame({"key": list(summary),
                         "value": [str(v).lower() if isinstance(v, bool) else str(v) for v in summary.values()]})
