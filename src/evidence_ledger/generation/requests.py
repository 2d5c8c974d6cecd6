"""Request planning for Study 2: one request row per (unit, source, budget, format, replicate).

In:  the Study 2 population of one dataset (CLAIMS table), its evidence (EVIDENCE table) and
     the ``generation`` config section.
Out: the REQUESTS table (``tables.generation.REQUESTS``) of one model x dataset.

Conditions (:func:`enumerate_conditions`):
  * ``primary``: sources x budgets x formats x replicates (0 = greedy, then one replicate per
    configured seed), codes under the ``primary`` code mapping;
  * greedy controls (replicate 0): evidence sources of ``controls.sources`` (none, gold, and
    swap / reversed once per ordering source: ``swap_bm25``, ``swap_bge``, ...) x
    ``controls.budgets`` x ``controls.formats``; and the alternative code mappings x ordering
    sources x ``controls.code_mapping_budgets`` (codes format). Which ordering sources and
    mappings: ``controls.design`` (``vocabulary.control_design``; ``crossed``, the default:
    every primary source and every alternative; ``one_per_unit``: the first of each).
Control evidence rows with ``fits_budget == False`` (e.g. gold evidence longer than the
budget) are skipped and counted; a missing *primary* evidence row is an input error.

Seeds: :func:`request_seed` hashes (dataset, claim_id, doc_id, replicate, replicate's base
seed) with sha256, so a sampled unit's seed is shared across sources, formats and budgets and
does not depend on table order. Greedy rows (replicate 0) have seed 0: greedy decoding uses
no seed, so none enters their identity, and byte-identical greedy prompts of different units
(SciFact's three abstracts of one claim under the ``none`` control) are one request.

De-duplication: ``request_id`` = sha256 of (messages, sampling parameters, seed,
max_new_tokens). Rows with equal ids (e.g. the ``none`` control at both budgets) are kept
as rows but generated once.

Sharding and order by shared prompt prefix (vLLM's prefix cache reuses the KV blocks of a
prompt prefix it computed recently; config/README.md "Generation order"): ``shard`` =
sha256 of the claim id mod ``shards``, so every request of one claim - all abstracts,
sources, budgets, formats, replicates and controls, which share the prompt up to the claim
and much of the evidence - is in one shard (a request id shared by two claims takes the
shard of the first); :func:`prefix_order` sorts a shard's requests by their messages, so
requests that share a prefix are adjacent. The prompts themselves do not depend on either.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import pyarrow as pa

from ..benchmark_registry import get_benchmark
from ..errors import InputError
from ..vocabulary import PRIMARY_MAPPING, control_design, control_sources
from ..tables.generation import REQUESTS
from . import prompts
from .backends.base import SamplingSpec, canonical_json

@dataclass(frozen=True)
class Condition:
    condition: str  # primary | none | swap | gold | reversed | code_mapping
    source: str
    budget: str
    format: str  # codes | labels
    code_mapping: str  # mapping name for codes, '' for labels
    replicate: int


def condition_name(cond: Condition) -> str:
    """``primary``, ``control:<source kind>`` or ``code_mapping:<mapping>`` (planner rows)."""
    if cond.condition == "primary":
        return "primary"
    if cond.condition == "code_mapping":
        return f"code_mapping:{cond.code_mapping}"
    return f"control:{cond.condition}"


def code_mappings(gen: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """All configured mappings by name: ``primary`` first, then the alternatives (validated)."""
    cm = gen["code_mappings"]
    out = {PRIMARY_MAPPING: prompts.validate_code_mapping(PRIMARY_MAPPING, cm[PRIMARY_MAPPING])}
    for name, mapping in (cm.get("alternatives") or {}).items():
        if name == PRIMARY_MAPPING:
            raise ValueError("an alternative code mapping cannot be called 'primary'")
        out[name] = prompts.validate_code_mapping(name, mapping)
    return out


def enumerate_conditions(gen: Mapping[str, Any]) -> list[Condition]:
    """Every condition one unit is asked under, in a fixed order (primary first)."""
    conds: list[Condition] = []
    n_rep = len(gen["seeds"])

    def mapping_for(fmt: str) -> str:
        return PRIMARY_MAPPING if fmt == "codes" else ""

    for source in gen["sources"]:
        for budget in gen["budgets"]:
            for fmt in gen["formats"]:
                for rep in range(n_rep + 1):
                    conds.append(Condition("primary", source, budget, fmt, mapping_for(fmt), rep))
    ctl = gen.get("controls") or {}
    ordering, alternatives = control_design(ctl.get("design", "crossed"), gen["sources"],
                                            [n for n in code_mappings(gen) if n != PRIMARY_MAPPING])
    for control in ctl.get("sources", []):
        for source in control_sources([control], ordering):
            for budget in ctl.get("budgets", []):
                for fmt in ctl.get("formats", []):
                    conds.append(Condition(control, source, budget, fmt, mapping_for(fmt), 0))
    for name in alternatives:
        for source in ordering:
            for budget in ctl.get("code_mapping_budgets", []):
                conds.append(Condition("code_mapping", source, budget, "codes", name, 0))
    return conds


def request_seed(dataset: str, claim_id: str, doc_id: str, replicate: int, base_seed: int) -> int:
    """Deterministic per-request seed in [0, 2**31): sha256 of the unit and the replicate."""
    text = f"{dataset}\x1f{claim_id}\x1f{doc_id}\x1f{replicate}\x1f{base_seed}"
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big") & 0x7FFFFFFF


def sampling_for(gen: Mapping[str, Any], replicate: int, seed: int) -> SamplingSpec:
    """Greedy (temperature 0, no top-p/top-k, seed 0: greedy decoding uses none) for
    replicate 0, else the configured sampler with ``seed``."""
    s = gen["sampling"]
    if replicate == 0:
        return SamplingSpec(0.0, 1.0, 0, float(s["repetition_penalty"]), int(gen["max_new_tokens"]), 0)
    return SamplingSpec(
        float(s["temperature"]), float(s["top_p"]), int(s["top_k"]), float(s["repetition_penalty"]),
        int(gen["max_new_tokens"]), seed,
    )


def request_id(messages: Sequence[Mapping[str, str]], sampling: SamplingSpec) -> str:
    """sha256 of the messages and sampling parameters (seed and max_new_tokens included)."""
    payload = {"messages": [[m["role"], m["content"]] for m in messages], "sampling": sampling.as_dict()}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def claim_shard(claim_id: str, n_shards: int) -> int:
    """The shard of every request of ``claim_id``: first 8 hex digits of sha256(claim id) mod
    ``n_shards`` (independent of table order)."""
    digest = hashlib.sha256(str(claim_id).encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % max(1, int(n_shards))


def prefix_sort_key(row: Mapping[str, Any]) -> tuple:
    """Order of a request in its generation job: its messages (role, content) in turn, then
    its request id (ties: equal prompts under different sampling). Sorting by this key is a
    depth-first walk of the prompt prefix tree: every group of requests that share a prefix
    is contiguous."""
    return (tuple((m["role"], m["content"]) for m in row["messages"]), row["request_id"])


def prefix_order(rows: Sequence[Mapping[str, Any]]) -> list:
    """``rows`` sorted by :func:`prefix_sort_key` (the order a generation job sends them)."""
    return sorted(rows, key=prefix_sort_key)


def unit_gold_label(dataset: str, claim: Mapping[str, Any], doc_id: str) -> str:
    """Gold label of a unit: the claim label (FEVER/FEVEROUS), or per abstract for SciFact
    (the gold abstract's label, NOINFO for a retrieved abstract without gold rationale)."""
    bench = get_benchmark(dataset)
    if not bench.per_document:
        return claim["label"]
    for ga in claim.get("gold_abstracts") or []:
        if str(ga["doc_id"]) == str(doc_id):
            return ga["label"]
    return bench.nei_label


def plan_requests(
    model: str,
    dataset: str,
    claims: Sequence[Mapping[str, Any]],
    evidence: Sequence[Mapping[str, Any]],
    gen: Mapping[str, Any],
    evidence_path: str = "evidence.parquet",
    n_shards: int = 1,
) -> tuple[pa.Table, dict[str, int]]:
    """Build the REQUESTS table of one model x dataset; also return skip counts by condition.

    Units are the (claim_id, doc_id) pairs that have evidence for the first primary source
    and budget, restricted to claims of the population; rows are ordered by claim_id,
    doc_id, then condition order.
    """
    claims_by_id = {str(c["claim_id"]): c for c in claims}
    ev: dict[tuple[str, str, str, str], Mapping[str, Any]] = {}
    for row in evidence:
        if row["dataset"] != dataset:
            continue
        ev[(str(row["claim_id"]), str(row["doc_id"]), row["source"], row["budget"])] = row
    first = (gen["sources"][0], gen["budgets"][0])
    units = sorted({(c, d) for (c, d, s, b) in ev if (s, b) == first and c in claims_by_id})
    covered = {c for c, _ in units}
    missing_claims = sorted(set(claims_by_id) - covered)
    if missing_claims:
        raise InputError(evidence_path, None, "claim_id",
                         f"{len(missing_claims)} population claims have no {first[0]}/{first[1]} evidence "
                         f"(first: {missing_claims[:3]})")
    mappings = code_mappings(gen)
    seeds = [0] + [int(s) for s in gen["seeds"]]
    conds = enumerate_conditions(gen)
    skipped: dict[str, int] = {}
    shard_of: dict[str, int] = {}
    rows = []
    for claim_id, doc_id in units:
        claim = claims_by_id[claim_id]
        gold = unit_gold_label(dataset, claim, doc_id)
        unit_seeds = [request_seed(dataset, claim_id, doc_id, r, seeds[r]) for r in range(len(seeds))]
        for cond in conds:
            e = ev.get((claim_id, doc_id, cond.source, cond.budget))
            if cond.condition == "primary" or cond.condition == "code_mapping":
                if e is None:
                    raise InputError(evidence_path, None, "source",
                                     f"no {cond.source}/{cond.budget} evidence for claim {claim_id} doc {doc_id!r}")
            if e is None or not e["fits_budget"]:
                skipped[cond.condition] = skipped.get(cond.condition, 0) + 1
                continue
            mapping = mappings[cond.code_mapping] if cond.format == "codes" else None
            messages = prompts.build_messages(dataset, cond.format, claim["claim"], e["visible_text"], mapping)
            tpl = prompts.template_for(dataset, cond.format)
            sampling = sampling_for(gen, cond.replicate, unit_seeds[cond.replicate])
            rid = request_id(messages, sampling)
            shard = shard_of.setdefault(rid, claim_shard(claim_id, n_shards))
            rows.append({
                "model": model,
                "dataset": dataset,
                "claim_id": claim_id,
                "doc_id": doc_id,
                "source": cond.source,
                "budget": cond.budget,
                "format": cond.format,
                "code_mapping": cond.code_mapping,
                "condition": cond.condition,
                "replicate": cond.replicate,
                "seed": sampling.seed,
                "template_id": tpl.template_id,
                "template_version": tpl.version,
                "messages": messages,
                "temperature": sampling.temperature,
                "top_p": sampling.top_p,
                "top_k": sampling.top_k,
                "repetition_penalty": sampling.repetition_penalty,
                "max_new_tokens": sampling.max_new_tokens,
                "request_id": rid,
                "shard": shard,
                "gold_label": gold,
                "prompt_chars": sum(len(m["content"]) for m in messages),
            })
    return pa.Table.from_pylist(rows, schema=REQUESTS.schema), skipped


def request_sampling(row: Mapping[str, Any]) -> SamplingSpec:
    """The :class:`SamplingSpec` stored in a REQUESTS row."""
    return SamplingSpec(float(row["temperature"]), float(row["top_p"]), int(row["top_k"]),
                        float(row["repetition_penalty"]), int(row["max_new_tokens"]), int(row["seed"]))
