"""Verifier input serialisation: (claim, ranked candidate ids) -> one token sequence.

In:  the claim text, the provider's ranked candidate unit ids, a unit lookup
     (``unit_id -> (text, context)``), a token encoder and :class:`SerialisationLimits`.
Out: :class:`SerialisedInput` (``input_ids`` plus a record of what went in: units used,
     units unresolved, token counts) and, for whole tables, rows of
     ``tables.verifier.VERIFIER_INPUTS``.

The layout is the tokenizer's sentence-pair layout, built from token ids so that every cap
is exact: ``[CLS] claim [SEP] evidence [SEP]`` where ``evidence`` is the chosen units
joined by ``unit_separator`` (or the sentinel text when none is chosen).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from ..tables.ingest_readers import read_units_table

Encoder = Callable[[str], list]


@dataclass(frozen=True)
class SerialisationLimits:
    """Caps of the input (all in tokens of the verifier's tokenizer).

    ``max_total_tokens`` includes the three special tokens; ``max_claim_tokens`` caps the claim
    block; ``max_units`` resolved units are taken from the first ``max_candidates`` candidate
    ids; each unit (context included) is capped at ``max_unit_tokens``. ``sentinel`` is the
    evidence text used when no unit remains. ``repeats_take_window_slots``: a repeated candidate
    id takes its own slot of the window (True, the paper's "first 30 candidate IDs" read as
    positions of the list as submitted), or the window is cut from the list with each id once
    (False).
    """

    max_total_tokens: int
    max_claim_tokens: int
    max_units: int
    max_candidates: int
    max_unit_tokens: int
    include_context: bool
    context_separator: str
    unit_separator: str
    sentinel: str
    repeats_take_window_slots: bool

    def __post_init__(self):
        for name in ("max_claim_tokens", "max_units", "max_candidates", "max_unit_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"SerialisationLimits.{name} must be >= 1, got {getattr(self, name)}")
        if self.max_total_tokens < 3 + self.max_claim_tokens + 1:
            raise ValueError(
                f"SerialisationLimits.max_total_tokens={self.max_total_tokens} leaves no room for evidence "
                f"after 3 special tokens and a {self.max_claim_tokens}-token claim block"
            )


@dataclass
class SerialisedInput:
    """One serialised verifier input and the record of how it was built."""

    input_ids: list
    candidate_ids: list
    used_unit_ids: list
    unresolved_ids: list
    claim_tokens: int
    unit_tokens: list
    sentinel: bool
    claim_truncated: bool
    units_truncated: int
    skipped_duplicates: list = field(default_factory=list)

    @property
    def total_tokens(self) -> int:
        return len(self.input_ids)


def selection_window(candidate_ids: Sequence[str], limits: SerialisationLimits) -> list:
    """The candidate ids the units are chosen from: the first ``max_candidates`` of the list
    (each id once first when ``repeats_take_window_slots`` is False)."""
    ids = list(candidate_ids) if limits.repeats_take_window_slots else list(dict.fromkeys(candidate_ids))
    return ids[: limits.max_candidates]


def render_unit(text: str, context: str, limits: SerialisationLimits) -> str:
    """The text of one unit as it enters the input: ``context : text`` when context is kept."""
    if limits.include_context and context:
        return f"{context}{limits.context_separator}{text}"
    return text


def serialise_input(
    claim: str,
    candidate_ids: Sequence[str],
    units: Mapping[str, tuple],
    encode: Encoder,
    cls_id: int,
    sep_id: int,
    limits: SerialisationLimits,
) -> SerialisedInput:
    """Build one verifier input.

    Rules, in order:
    * the claim is encoded and cut to its first ``max_claim_tokens`` tokens;
    * the window is the first ``max_candidates`` candidate ids in provider order
      (:func:`selection_window`); an id
      missing from ``units`` is *unresolved*: omitted and listed in ``unresolved_ids``;
      a repeated id takes its slot of the window like any candidate id (the provider wrote it;
      unless ``repeats_take_window_slots`` is False) and is used once (later copies listed in
      ``skipped_duplicates``);
    * resolved units are taken in window order until ``max_units`` are in; each unit's
      rendered text (see :func:`render_unit`) is cut to ``max_unit_tokens``; units are joined
      by ``unit_separator``;
    * the whole sequence never exceeds ``max_total_tokens``: a unit that does not fit whole
      in the room left is cut to that room and is the last one (counted in
      ``units_truncated``); a unit for which no token of room is left is not used;
    * when no unit went in, the evidence is the ``sentinel`` text (``sentinel=True``).
    """
    claim_ids = list(encode(claim))
    claim_truncated = len(claim_ids) > limits.max_claim_tokens
    claim_ids = claim_ids[: limits.max_claim_tokens]
    room = limits.max_total_tokens - 3 - len(claim_ids)
    sep_text_ids = list(encode(limits.unit_separator)) if limits.unit_separator else []

    window = selection_window(candidate_ids, limits)
    used, unresolved, unit_tokens, duplicates = [], [], [], []
    evidence_ids: list = []
    units_truncated = 0
    seen = set()
    for unit_id in window:
        if unit_id not in units:
            unresolved.append(unit_id)
            continue
        if unit_id in seen:
            duplicates.append(unit_id)
            continue
        seen.add(unit_id)
        if len(used) >= limits.max_units or room <= 0:
            continue  # keep scanning: unresolved ids of the whole window are still recorded
        text, context = units[unit_id]
        piece = list(encode(render_unit(text, context, limits)))
        joiner = sep_text_ids if evidence_ids else []
        if len(joiner) + 1 > room:
            room = 0
            continue
        cap = min(limits.max_unit_tokens, room - len(joiner))
        if len(piece) > cap:
            piece = piece[:cap]
            units_truncated += 1
        evidence_ids.extend(joiner)
        evidence_ids.extend(piece)
        room -= len(joiner) + len(piece)
        used.append(unit_id)
        unit_tokens.append(len(piece))

    sentinel = not used
    if sentinel:
        evidence_ids = list(encode(limits.sentinel))[: max(room, 0)]
    input_ids = [cls_id, *claim_ids, sep_id, *evidence_ids, sep_id]
    assert len(input_ids) <= limits.max_total_tokens
    return SerialisedInput(
        input_ids=input_ids,
        candidate_ids=window,
        used_unit_ids=used,
        unresolved_ids=unresolved,
        claim_tokens=len(claim_ids),
        unit_tokens=unit_tokens,
        sentinel=sentinel,
        claim_truncated=claim_truncated,
        units_truncated=units_truncated,
        skipped_duplicates=duplicates,
    )


def tokenizer_encoder(tokenizer) -> tuple[Encoder, int, int]:
    """``(encode, cls_id, sep_id)`` for a Hugging Face tokenizer (no special tokens added)."""
    if tokenizer.cls_token_id is None or tokenizer.sep_token_id is None:
        raise ValueError(f"tokenizer {tokenizer.name_or_path!r} lacks a CLS or SEP token; cannot build pair inputs")

    def encode(text: str) -> list:
        return tokenizer.encode(text, add_special_tokens=False)

    return encode, int(tokenizer.cls_token_id), int(tokenizer.sep_token_id)


def unit_lookup(units: pa.Table, wanted_ids) -> dict:
    """``unit_id -> (text, context)`` for the ``wanted_ids`` present in a UNITS table."""
    wanted = pa.array(sorted(set(wanted_ids)), type=pa.string())
    sub = units.filter(pc.is_in(units["unit_id"], value_set=wanted))
    return {u: (t, c or "") for u, t, c in zip(
        sub["unit_id"].to_pylist(), sub["text"].to_pylist(), sub["context"].to_pylist())}


def candidate_lists(evidence: pa.Table, dataset: str) -> dict:
    """``claim_id -> (candidate ids, provider unresolved count)`` of one provider EVIDENCE table
    (budget ``full``, ``doc_id`` ''). The candidate ids are the provider's whole submitted list
    (``submitted_unit_ids``: provider order, repeated and unresolved ids included), so an
    unresolved id takes its slot of the window. A claim listed twice, or a row without a
    submitted list (not imported from a provider submission), raises ``ValueError``."""
    out = {}
    rows = evidence.filter(pc.equal(evidence["dataset"], dataset)).select(
        ["claim_id", "source", "submitted_unit_ids", "unresolved"]).to_pylist()
    for row in rows:
        if row["claim_id"] in out:
            raise ValueError(f"evidence table lists claim {row['claim_id']!r} more than once")
        if row["submitted_unit_ids"] is None:
            raise ValueError(f"evidence source {row['source']!r}, claim {row['claim_id']!r}: no submitted_unit_ids; "
                             f"the verifier reads provider tables written by import_evidence_source")
        out[row["claim_id"]] = (list(row["submitted_unit_ids"]), int(row["unresolved"] or 0))
    return out


def build_verifier_inputs(
    claims: pa.Table,
    evidence_by_source: Mapping[str, pa.Table],
    units: pa.Table,
    tokenizer,
    limits: SerialisationLimits,
    split: str,
    progress=None,
) -> tuple[pa.Table, dict]:
    """Serialise every claim of a CLAIMS table under each evidence source.

    Returns (a ``VERIFIER_INPUTS`` table sorted by source order then claim order, and a dict
    ``source -> number of claims the source has no row for``). A claim the source has no row
    for gets an empty candidate list, hence the sentinel input; it is counted, not dropped.
    """
    from ..tables.verifier import VERIFIER_INPUTS

    encode, cls_id, sep_id = tokenizer_encoder(tokenizer)
    claim_rows = claims.select(["dataset", "claim_id", "claim", "label"]).to_pylist()
    datasets = {r["dataset"] for r in claim_rows}
    if len(datasets) > 1:
        raise ValueError(f"build_verifier_inputs: claims of several datasets {sorted(datasets)}")
    dataset = datasets.pop() if datasets else ""
    lists = {s: candidate_lists(ev, dataset) for s, ev in evidence_by_source.items()}
    wanted = set()
    for per_claim in lists.values():
        for cands, _ in per_claim.values():
            wanted.update(selection_window(cands, limits))
    lookup = unit_lookup(units, wanted)
    rows, missing = [], {}
    for source in evidence_by_source:
        missing[source] = 0
        iterator = claim_rows if progress is None else progress(claim_rows, desc=f"serialise {split} {source}")
        for claim in iterator:
            cands, provider_unresolved = lists[source].get(claim["claim_id"], (None, 0))
            in_source = cands is not None
            if not in_source:
                missing[source] += 1
                cands = []
            s = serialise_input(claim["claim"], cands, lookup, encode, cls_id, sep_id, limits)
            rows.append({
                "dataset": dataset,
                "split": split,
                "source": source,
                "claim_id": claim["claim_id"],
                "gold_label": claim["label"],
                "in_source": in_source,
                "candidate_ids": s.candidate_ids,
                "used_unit_ids": s.used_unit_ids,
                "unresolved_ids": s.unresolved_ids,
                "provider_unresolved": provider_unresolved,
                "claim_tokens": s.claim_tokens,
                "unit_tokens": s.unit_tokens,
                "total_tokens": s.total_tokens,
                "sentinel": s.sentinel,
                "claim_truncated": s.claim_truncated,
                "units_truncated": s.units_truncated,
                "input_ids": s.input_ids,
            })
    return VERIFIER_INPUTS.from_rows(rows), missing


def read_units_subset(units_path, wanted_ids) -> pa.Table:
    """The UNITS rows whose ``unit_id`` is in ``wanted_ids`` (columns unit_id, text, context),
    reading only the row groups whose statistics may hold them (the whole FEVEROUS wiki does
    not fit in memory as one table); the file is checked to be a UNITS table first."""
    return read_units_table(units_path, unit_ids=wanted_ids, columns=["unit_id", "text", "context"])


def run_serialise(claims_path, units_path, evidence_paths: Mapping[str, str], tokenizer_source,
                  limits: SerialisationLimits, split: str, out_path, progress=None, log=None) -> dict:
    """Rule adapter: read CLAIMS, UNITS and provider EVIDENCE tables (``source -> path``, in
    source order), serialise, write ``VERIFIER_INPUTS`` to ``out_path``. ``tokenizer_source``
    is a :class:`.train.BaseModel` (Hub id + revision, or local dir). Returns summary counts."""
    from .. import tables
    from ..tables.evidence import EVIDENCE
    from ..tables.ingest import CLAIMS
    from ..tables.verifier import VERIFIER_INPUTS
    from .train import load_tokenizer

    claims = tables.read_table(claims_path, CLAIMS)
    evidence = {s: tables.read_table(p, EVIDENCE) for s, p in evidence_paths.items()}
    wanted = {u for ev in evidence.values() for ids in ev["submitted_unit_ids"].to_pylist()
              for u in selection_window(ids or [], limits)}
    units = read_units_subset(units_path, wanted)
    tokenizer = load_tokenizer(tokenizer_source)
    table, missing = build_verifier_inputs(claims, evidence, units, tokenizer, limits, split, progress)
    tables.write_table(table, out_path, VERIFIER_INPUTS)
    summary = {
        "rows": table.num_rows,
        "claims_missing_from_source": missing,
        "sentinel_inputs": int(pc.sum(table["sentinel"]).as_py() or 0),
        "inputs_with_unresolved_in_window": int(sum(1 for u in table["unresolved_ids"].to_pylist() if u)),
        "claims_truncated": int(pc.sum(table["claim_truncated"]).as_py() or 0),
        "units_truncated": int(pc.sum(table["units_truncated"]).as_py() or 0),
        "max_total_tokens": int(pc.max(table["total_tokens"]).as_py() or 0),
    }
    if log:
        log.info("serialised %s: %s", split, summary)
    return summary
