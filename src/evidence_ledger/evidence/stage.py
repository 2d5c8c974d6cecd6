"""The evidence rules, one keyword-only function each (paths and plain values in, files out).

  assemble_evidence            ORDERING (bm25, bge) + RETRIEVED + CLAIMS (the Study 2 sample) + UNITS
                               -> EVIDENCE of those claims
  export_provider_submissions  ORDERING + CLAIMS -> provider submission JSON lines
  import_evidence_source       submission + CLAIMS + UNITS -> EVIDENCE (budget ``full``)
  evidence_diagnostics         CLAIMS + RETRIEVED + POOLS + EVIDENCE tables -> diagnostics TSV

Budget tokenizers are given as name -> {"path": directory or Hub id, "revision": str | None}
and loaded with ``AutoTokenizer.from_pretrained``. The scored-prefix caps of the dataset are
``prefix_non_cell`` / ``prefix_cell`` (None: no cell cap) with ``cell_like_kinds``.
"""
from __future__ import annotations

import json
import logging

from .. import tables
from ..files.safe_files import write_text_atomic
from ..tables.evidence import EVIDENCE
from ..tables.ingest_readers import read_claims, read_units
from ..tables.retrieval import ORDERING, POOLS, RETRIEVED
from ..vocabulary import CONTROL_SWAP
from . import assemble, diagnostics, providers
from .budget import load_tokenizer

log = logging.getLogger(__name__)


def _load_tokenizers(specs: dict[str, dict]) -> dict:
    """name -> tokenizer, from name -> {"path": dir or hub id, "revision": str | None}."""
    return {name: load_tokenizer(s["path"], s.get("revision")) for name, s in sorted(specs.items())}


def _unit_infos(units_path, unit_ids) -> dict[str, assemble.UnitInfo]:
    u = read_units(units_path, unit_ids=unit_ids, columns=["unit_id", "doc_id", "kind", "text", "context"])
    return {r.unit_id: assemble.UnitInfo(r.text, r.context, r.kind, r.doc_id) for r in u.itertuples(index=False)}


def _prefix_caps(non_cell, cell, cell_like_kinds) -> assemble.PrefixCaps:
    return assemble.PrefixCaps(non_cell=int(non_cell), cell=cell, cell_like_kinds=tuple(cell_like_kinds))


def assemble_evidence(*, bm25, bge, retrieved, claims: list, units, evidence: str, dataset: str,
                      tokenizers: dict, budgets: dict, prefix_non_cell: int, prefix_cell, cell_like_kinds: list,
                      per_document: bool, controls: list, swap_seed: int) -> list[dict]:
    """EVIDENCE ``evidence`` of the claims of the CLAIMS tables ``claims`` (the Study 2 sample: the
    claims generated for) from the ``bm25`` and ``bge`` orderings under every budget of ``budgets``
    (name -> tokens under every tokenizer of ``tokenizers``), plus the ``controls``. The orderings
    hold every retrieved claim (``retrieval.extra_claim_splits`` too, read as orderings by the
    provider exports); only a swap donor's ordered evidence is built beside the claims'."""
    ordering_paths = {"bm25": bm25, "bge": bge}
    orderings = {s: tables.read_frame(p, ORDERING).to_dict("records") for s, p in sorted(ordering_paths.items())}
    retrieved_frame = tables.read_frame(retrieved, RETRIEVED, columns=["claim_id", "doc_ids"])
    retrieved_docs = {c: list(d) for c, d in zip(retrieved_frame["claim_id"], retrieved_frame["doc_ids"])}
    claim_frame = read_claims(claims)
    gold = {c: [list(g) for g in gs] for c, gs in zip(claim_frame["claim_id"], claim_frame["evidence_groups"])}
    build = assemble.claims_to_build(orderings, retrieved_docs, per_document, set(gold),
                                     CONTROL_SWAP in controls, swap_seed)
    ids = {u for s, rows in orderings.items() for o in rows if o["claim_id"] in build[s] for u in o["unit_ids"]}
    ids |= {u for gs in gold.values() for g in gs for u in g}
    builder = assemble.EvidenceBuilder(dataset, _unit_infos(units, ids), _load_tokenizers(tokenizers),
                                       dict(budgets), _prefix_caps(prefix_non_cell, prefix_cell, cell_like_kinds),
                                       per_document=per_document)
    rows = assemble.assemble_evidence(builder, orderings, retrieved_docs, gold, controls=list(controls),
                                      swap_seed=swap_seed, claim_ids=set(gold), show_progress=True)
    tables.write_table(EVIDENCE.from_rows(rows), evidence, EVIDENCE)
    log.info("evidence rows: %d of %d claims (%s; ordered evidence built for %d claims, swap donors included)",
             len(rows), len(gold), dataset, len(set().union(*build.values())))
    return rows


def export_provider_submissions(*, ordering, claims: list, submission: str, max_ids) -> int:
    """Write the ``ordering`` of the claims in the CLAIMS tables ``claims`` as a provider
    ``submission`` (at most ``max_ids`` ids per line; None: the whole pool)."""
    claim_ids = set(read_claims(claims)["claim_id"])
    rows = [o for o in tables.read_frame(ordering, ORDERING).to_dict("records") if o["claim_id"] in claim_ids]
    missing = claim_ids - {o["claim_id"] for o in rows}
    if missing:
        raise ValueError(f"{ordering}: no ordering for {len(missing)} claims, e.g. {sorted(missing)[0]!r}; "
                         f"retrieve for these claims first (retrieval.extra_claim_splits)")
    n = providers.export_submission(rows, submission, max_ids)
    log.info("exported %d claims to %s", n, submission)
    return n


def import_evidence_source(*, submission, claims: list, units, evidence: str, summary: str, dataset: str,
                           source: str, tokenizers: dict, prefix_non_cell: int, prefix_cell,
                           cell_like_kinds: list) -> dict:
    """A provider ``submission`` as EVIDENCE ``evidence`` of ``source`` (budget ``full``), with a
    JSON ``summary`` (claims, claims without a line, predicted ids, unresolved ids, repeated ids
    and the claims with repeats)."""
    claim_ids = list(read_claims(claims)["claim_id"])
    submitted = providers.read_submission(submission, set(claim_ids))
    ids = {u for v in submitted.values() for u in v}
    builder = assemble.EvidenceBuilder(dataset, _unit_infos(units, ids), _load_tokenizers(tokenizers),
                                       {}, _prefix_caps(prefix_non_cell, prefix_cell, cell_like_kinds))
    rows, counts = providers.import_submission_rows(builder, claim_ids, submitted, source)
    tables.write_table(EVIDENCE.from_rows(rows), evidence, EVIDENCE)
    log.info("imported %s: %s", source, counts)
    write_text_atomic(summary, json.dumps(counts, indent=1, sort_keys=True) + "\n")
    return counts


def evidence_diagnostics(*, claims: list, retrieved, pools, evidence: list, tsv: str, dataset: str,
                         per_document: bool, needs_no_evidence: list):
    """Gold recall of the ``pools`` and of every source x budget of the ``evidence`` tables,
    coverage, cap hits and retrieval misses -> diagnostics ``tsv``."""
    claim_frame = read_claims(claims)
    claim_map = {r["claim_id"]: {"label": r["label"], "evidence_groups": r["evidence_groups"]}
                 for r in claim_frame.to_dict("records")}
    retrieved_rows = tables.read_frame(retrieved, RETRIEVED).to_dict("records")
    pool_rows = tables.read_frame(pools, POOLS).to_dict("records")
    evidence_rows = [e for p in evidence for e in tables.read_frame(p, EVIDENCE).to_dict("records")]
    rows = diagnostics.diagnostics(dataset, claim_map, retrieved_rows, pool_rows, evidence_rows, per_document,
                                   tuple(needs_no_evidence))
    return diagnostics.write_diagnostics_tsv(rows, tsv)
