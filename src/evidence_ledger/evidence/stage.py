"""File-level entry points of the evidence rules (read tables, call the pure functions, write).

  assemble_evidence            ORDERING (bm25, bge) + RETRIEVED + CLAIMS + UNITS -> EVIDENCE
  export_provider_submissions  ORDERING + CLAIMS -> provider submission JSON lines
  import_evidence_source       submission + CLAIMS + UNITS -> EVIDENCE (budget ``full``)
  evidence_diagnostics         CLAIMS + RETRIEVED + POOLS + EVIDENCE tables -> diagnostics TSV

Budget tokenizers are given as name -> (directory or Hub id, revision) and loaded with
``AutoTokenizer.from_pretrained``.
"""
from __future__ import annotations

import json
import logging

import pandas as pd

from .. import tables
from ..retrieval.stage import read_claims, read_units
from ..tables.evidence import EVIDENCE
from ..tables.retrieval import ORDERING, POOLS, RETRIEVED
from . import assemble, diagnostics, providers
from .budget import load_tokenizer

log = logging.getLogger(__name__)


def load_tokenizers(specs: dict[str, dict]) -> dict:
    """name -> tokenizer, from name -> {"path": dir or hub id, "revision": str | None}."""
    return {name: load_tokenizer(s["path"], s.get("revision")) for name, s in sorted(specs.items())}


def unit_infos(units_path, unit_ids) -> dict[str, assemble.UnitInfo]:
    u = read_units(units_path, unit_ids=unit_ids, columns=["unit_id", "doc_id", "kind", "text", "context"])
    return {r.unit_id: assemble.UnitInfo(r.text, r.context, r.kind, r.doc_id) for r in u.itertuples(index=False)}


def make_caps(caps: dict) -> assemble.PrefixCaps:
    return assemble.PrefixCaps(non_cell=int(caps["non_cell"]), cell=caps.get("cell"),
                               cell_like_kinds=tuple(caps.get("cell_like_kinds", assemble.CELL_LIKE_KINDS)))


def assemble_evidence_file(dataset, ordering_paths: dict[str, str], retrieved_path, claims_paths, units_path,
                           out_path, tokenizer_specs, budgets, caps, per_document, controls, swap_seed):
    orderings = {s: tables.read_frame(p, ORDERING).to_dict("records") for s, p in sorted(ordering_paths.items())}
    retrieved = tables.read_frame(retrieved_path, RETRIEVED, columns=["claim_id", "doc_ids"])
    retrieved_docs = {c: list(d) for c, d in zip(retrieved["claim_id"], retrieved["doc_ids"])}
    claims = read_claims(claims_paths)
    gold = {c: [list(g) for g in gs] for c, gs in zip(claims["claim_id"], claims["evidence_groups"])}
    ids = {u for rows in orderings.values() for o in rows for u in o["unit_ids"]}
    ids |= {u for gs in gold.values() for g in gs for u in g}
    builder = assemble.EvidenceBuilder(dataset, unit_infos(units_path, ids), load_tokenizers(tokenizer_specs),
                                       dict(budgets), make_caps(caps), per_document=per_document)
    rows = assemble.assemble_evidence(builder, orderings, retrieved_docs, gold, controls=controls,
                                      swap_seed=swap_seed, show_progress=True)
    tables.write_table(EVIDENCE.from_rows(rows), out_path, EVIDENCE)
    log.info("evidence rows: %d (%s)", len(rows), dataset)
    return rows


def export_provider_submissions(ordering_path, claims_paths, out_path, max_ids=None) -> int:
    """Write the ordering of the claims in ``claims_paths`` as a provider submission."""
    claim_ids = set(read_claims(claims_paths)["claim_id"])
    rows = [o for o in tables.read_frame(ordering_path, ORDERING).to_dict("records") if o["claim_id"] in claim_ids]
    missing = claim_ids - {o["claim_id"] for o in rows}
    if missing:
        raise ValueError(f"{ordering_path}: no ordering for {len(missing)} claims, e.g. {sorted(missing)[0]!r}; "
                         f"retrieve for these claims first (retrieval.extra_claim_splits)")
    n = providers.export_submission(rows, out_path, max_ids)
    log.info("exported %d claims to %s", n, out_path)
    return n


def import_evidence_source(dataset, source, submission_path, claims_paths, units_path, out_path,
                           tokenizer_specs, caps, summary_path=None) -> dict:
    claim_ids = list(read_claims(claims_paths)["claim_id"])
    submission = providers.read_submission(submission_path, set(claim_ids))
    ids = {u for v in submission.values() for u in v}
    builder = assemble.EvidenceBuilder(dataset, unit_infos(units_path, ids), load_tokenizers(tokenizer_specs),
                                       {}, make_caps(caps))
    rows, summary = providers.import_submission_rows(builder, claim_ids, submission, source)
    tables.write_table(EVIDENCE.from_rows(rows), out_path, EVIDENCE)
    log.info("imported %s: %s", source, summary)
    if summary_path:
        with open(summary_path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return summary


DIAGNOSTIC_COLUMNS = ["dataset", "scope", "source", "budget", "metric", "numerator", "denominator", "value"]


def evidence_diagnostics(dataset, claims_paths, retrieved_path, pools_path, evidence_paths, out_path,
                         per_document, needs_no_evidence) -> pd.DataFrame:
    claims = read_claims(claims_paths)
    claim_map = {r["claim_id"]: {"label": r["label"], "evidence_groups": r["evidence_groups"]}
                 for r in claims.to_dict("records")}
    retrieved = tables.read_frame(retrieved_path, RETRIEVED).to_dict("records")
    pool_rows = tables.read_frame(pools_path, POOLS).to_dict("records")
    evidence = [e for p in evidence_paths for e in tables.read_frame(p, EVIDENCE).to_dict("records")]
    rows = diagnostics.diagnostics(dataset, claim_map, retrieved, pool_rows, evidence, per_document,
                                   tuple(needs_no_evidence))
    frame = pd.DataFrame(rows, columns=DIAGNOSTIC_COLUMNS)
    frame.to_csv(out_path, sep="\t", index=False, float_format="%.6f", lineterminator="\n")
    return frame
