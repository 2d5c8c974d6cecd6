"""EVIDENCE rows for the pool orderings and the greedy controls.

In:  ORDERING rows per source (e.g. ``bm25``, ``bge``), each claim's retrieved documents,
     the claims (gold evidence groups), a unit lookup (unit id -> text, context, kind,
     doc id), the budget tokenizers and budgets, and the scored-prefix caps.
Out: EVIDENCE rows, one per (claim, doc_id, source, budget).

Evaluation unit: the claim (``doc_id`` = '') for FEVER / FEVEROUS; claim x retrieved
abstract for SciFact (``per_document=True``): each retrieved abstract gets its own row
whose evidence is that abstract's sentences in the source's order.

Controls (same budget; source names from ``controls``: ``swap`` and ``reversed`` are built
from *each* ordering source's own rows and named ``swap_{source}`` / ``reversed_{source}``):
  none     - empty evidence.
  swap     - the evidence of another claim under the same ordering source: claims are sorted
             by sha256(f"{seed}:{claim_id}") and each takes the evidence of the next one
             (cyclically), a derangement within the dataset shared by every source (SciFact:
             the donor's abstract of the same retrieval rank; empty if the donor has fewer
             abstracts). Needs at least two claims.
  gold     - a complete gold evidence group: the first group (annotation order) whose
             rendered text fits the budget under every tokenizer; when none fits, the first
             group whose ids all resolve (else the first group), shown whole with
             ``fits_budget=False``. Claims (SciFact: abstracts) without gold evidence get
             empty evidence. Gold ids that do not resolve to a unit are counted in
             ``unresolved`` and left out.
  reversed - the source's visible units in reverse order; token counts are recomputed and
             ``fits_budget`` is False if the reversed text exceeds the budget.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from tqdm import tqdm

from .budget import assemble_budgeted, line_tokens, render_counts
from ..vocabulary import CONTROL_GOLD, CONTROL_NONE, CONTROL_REVERSED, CONTROL_SWAP, CONTROLS, control_source
from .prefix import CELL_LIKE_KINDS, scored_prefix
from .render import render_unit


@dataclass
class PrefixCaps:
    """Scored-prefix caps of one benchmark (see ``prefix.scored_prefix``)."""

    non_cell: int
    cell: int | None = None
    cell_like_kinds: tuple = CELL_LIKE_KINDS


@dataclass
class UnitInfo:
    text: str
    context: str
    kind: str
    doc_id: str

    @property
    def line(self) -> str:
        return render_unit(self.text, self.context)


@dataclass
class EvidenceBuilder:
    """Everything needed to turn unit-id lists into EVIDENCE rows for one dataset."""

    dataset: str
    units: dict[str, UnitInfo]
    tokenizers: dict
    budgets: dict[str, int]
    caps: PrefixCaps
    per_document: bool = False
    _cache: dict = field(default_factory=dict)  # unit id -> {tokenizer name: line_tokens counts of its line}
    _counted: dict = field(default_factory=dict)  # gold unit ids -> (text, counts) of counted(keep=True)

    def row(self, claim_id: str, doc_id: str, source: str, budget: str, visible: list[str],
            text: str, tokens: dict[str, int], unresolved: int = 0, fits: bool = True,
            submitted: list[str] | None = None) -> dict:
        """One EVIDENCE row; ``submitted`` is a provider's full list as written (None otherwise)."""
        kinds = [self.units[u].kind for u in visible]
        scored = scored_prefix(visible, kinds, self.caps.non_cell, self.caps.cell, self.caps.cell_like_kinds)
        return {"dataset": self.dataset, "claim_id": claim_id, "doc_id": doc_id, "source": source,
                "budget": budget, "visible_unit_ids": list(visible), "visible_text": text,
                "tokens_by_tokenizer": {k: int(v) for k, v in sorted(tokens.items())},
                "scored_unit_ids": scored, "unresolved": int(unresolved), "fits_budget": bool(fits),
                "submitted_unit_ids": None if submitted is None else list(submitted)}

    def unit_tokens(self, ids: list[str]) -> dict[str, list[int]]:
        """Tokenizer name -> each unit's line count (``budget.line_tokens``), counted once per unit
        and kept (claims share units: the orderings of one claim, and claims of one page)."""
        new = [u for u in dict.fromkeys(ids) if u not in self._cache]
        if new:
            fresh = line_tokens([self.units[u].line for u in new], self.tokenizers)
            for i, u in enumerate(new):
                self._cache[u] = {t: fresh[t][i] for t in self.tokenizers}
        return {t: [self._cache[u][t] for u in ids] for t in self.tokenizers}

    def budgeted_rows(self, claim_id: str, doc_id: str, source: str, ordered: list[str]) -> list[dict]:
        """One row per budget: the longest fitting prefix of ``ordered``."""
        res = assemble_budgeted([self.units[u].line for u in ordered], self.tokenizers, self.budgets,
                                self.unit_tokens(ordered))
        return [self.row(claim_id, doc_id, source, b, ordered[: res[b]["n_units"]], res[b]["text"],
                         res[b]["tokens"]) for b in self.budgets]

    def counted(self, ids: list[str], keep: bool = False) -> tuple[str, dict[str, int]]:
        """The evidence text of ``ids`` and its counts; ``keep``: remember them (a gold group is
        counted once for all budgets)."""
        key = tuple(ids)
        if key in self._counted:
            return self._counted[key]
        counted = render_counts([self.units[u].line for u in ids], self.tokenizers)
        if keep:
            self._counted[key] = counted
        return counted

    def fits(self, tokens: dict[str, int], budget: str) -> bool:
        return all(v <= self.budgets[budget] for v in tokens.values())


def evaluation_units(ordering: dict, retrieved_docs: list[str], per_document: bool,
                     units: dict[str, UnitInfo]) -> list[tuple[str, list[str]]]:
    """(doc_id, ordered unit ids) per evaluation unit of one claim's ordering."""
    ordered = list(ordering["unit_ids"])
    if not per_document:
        return [("", ordered)]
    return [(d, [u for u in ordered if units[u].doc_id == d]) for d in retrieved_docs]


def derangement(claim_ids: list[str], seed: int) -> dict[str, str]:
    """claim id -> donor claim id: sorted by sha256(f"{seed}:{id}"), each takes the next one."""
    ids = sorted(set(claim_ids), key=lambda c: (hashlib.sha256(f"{seed}:{c}".encode()).hexdigest(), c))
    if len(ids) < 2:
        raise ValueError(f"a swap control needs at least two claims, got {len(ids)}")
    return {c: ids[(i + 1) % len(ids)] for i, c in enumerate(ids)}


def gold_groups_for(groups, doc_id: str, per_document: bool, units: dict[str, UnitInfo]) -> list[list[str]]:
    """The claim's gold groups relevant to this evaluation unit (SciFact: groups in ``doc_id``)."""
    groups = [list(dict.fromkeys(g)) for g in (groups if groups is not None else []) if len(g)]
    if not per_document:
        return groups
    out = []
    for g in groups:
        docs = {units[u].doc_id if u in units else u.split(":", 1)[0] for u in g}
        if docs == {doc_id}:
            out.append(g)
    return out


def gold_row(b: EvidenceBuilder, claim_id: str, doc_id: str, budget: str, groups: list[list[str]]) -> dict:
    """The ``gold`` control for one evaluation unit and budget (see module doc)."""
    if not groups:
        return b.row(claim_id, doc_id, "gold", budget, [], "", {t: 0 for t in b.tokenizers})
    fallback = None
    for g in groups:
        ids = [u for u in g if u in b.units]
        unresolved = len(g) - len(ids)
        text, tokens = b.counted(ids, keep=True)
        if unresolved == 0 and b.fits(tokens, budget):
            return b.row(claim_id, doc_id, "gold", budget, ids, text, tokens, 0, True)
        if fallback is None or (fallback[3] > 0 and unresolved == 0):
            fallback = (ids, text, tokens, unresolved)
    ids, text, tokens, unresolved = fallback
    return b.row(claim_id, doc_id, "gold", budget, ids, text, tokens, unresolved, False)


def ordered_claims(rows: list[dict], retrieved_docs: dict[str, list[str]], per_document: bool) -> list[str]:
    """The claims of one source's ORDERING rows that have an evaluation unit (SciFact: a retrieved
    abstract), in row order: the claims a swap donor is drawn from."""
    return [o["claim_id"] for o in rows if not per_document or retrieved_docs.get(o["claim_id"])]


def claims_to_build(orderings: dict[str, list[dict]], retrieved_docs: dict[str, list[str]], per_document: bool,
                    claim_ids: set[str] | None, swap: bool, swap_seed: int) -> dict[str, set[str]]:
    """source -> the claims whose ordered evidence is built: ``claim_ids`` (None: every ordered
    claim) and, with a ``swap`` control, their donors. Donors are drawn from every ordered claim of
    the source, so a claim's swap evidence does not depend on which claims are assembled."""
    out = {}
    for source, rows in orderings.items():
        ordered = ordered_claims(rows, retrieved_docs, per_document)
        wanted = set(ordered) if claim_ids is None else set(ordered) & set(claim_ids)
        donors = derangement(ordered, swap_seed) if swap and wanted else {}
        out[source] = wanted | {donors[c] for c in wanted if c in donors}
    return out


def assemble_evidence(b: EvidenceBuilder, orderings: dict[str, list[dict]], retrieved_docs: dict[str, list[str]],
                      gold: dict[str, list], *, controls=CONTROLS, swap_seed: int, claim_ids: set[str] | None = None,
                      show_progress: bool = False) -> list[dict]:
    """EVIDENCE rows of the claims ``claim_ids`` (None: every ordered claim) for every ordering
    source and control, sorted by (claim, doc, source, budget).

    ``orderings``: source -> ORDERING rows; ``retrieved_docs``: claim id -> ranked doc ids;
    ``gold``: claim id -> gold evidence groups. ``none`` and ``gold`` rows are built once per
    evaluation unit (from the first ordering source's units, sorted by name); ``swap`` and
    ``reversed`` once per ordering source (``swap_{source}``, ``reversed_{source}``). The ordered
    evidence of a swap donor outside ``claim_ids`` is built, not written (:func:`claims_to_build`).
    """
    controls = list(controls)
    build = claims_to_build(orderings, retrieved_docs, b.per_document, claim_ids, CONTROL_SWAP in controls, swap_seed)
    rows = []
    per_source: dict[str, dict[str, list[dict]]] = {}
    for source in sorted(orderings):
        for o in tqdm(orderings[source], desc=f"assemble {source}", disable=not show_progress, mininterval=10):
            cid = o["claim_id"]
            if cid not in build[source]:
                continue
            for doc_id, ordered in evaluation_units(o, retrieved_docs.get(cid, []), b.per_document, b.units):
                new = b.budgeted_rows(cid, doc_id, source, ordered)
                if claim_ids is None or cid in claim_ids:
                    rows.extend(new)
                per_source.setdefault(source, {}).setdefault(cid, []).extend(new)
    if controls and not per_source and (claim_ids is None or claim_ids):
        raise ValueError("the controls are built from the ordering sources, and there are none")
    zero = {t: 0 for t in b.tokenizers}
    first = sorted(per_source)[0] if per_source else None
    for source in sorted(per_source):
        per_claim = per_source[source]
        donors = (derangement(ordered_claims(orderings[source], retrieved_docs, b.per_document), swap_seed)
                  if CONTROL_SWAP in controls else {})
        for cid in sorted(c for c in per_claim if claim_ids is None or c in claim_ids):
            own = per_claim[cid]
            doc_rank = list(dict.fromkeys(r["doc_id"] for r in own))
            for r in own:
                doc_id, budget = r["doc_id"], r["budget"]
                if source == first and CONTROL_NONE in controls:
                    rows.append(b.row(cid, doc_id, CONTROL_NONE, budget, [], "", zero))
                if source == first and CONTROL_GOLD in controls:
                    rows.append(gold_row(b, cid, doc_id, budget,
                                         gold_groups_for(gold.get(cid), doc_id, b.per_document, b.units)))
                if CONTROL_SWAP in controls:
                    donor_rows = per_claim[donors[cid]]
                    donor_docs = list(dict.fromkeys(x["doc_id"] for x in donor_rows))
                    rank = doc_rank.index(doc_id)
                    vis, text, tokens = [], "", zero
                    if rank < len(donor_docs):  # the donor's own evidence: its text and counts as built
                        d = next(x for x in donor_rows if x["doc_id"] == donor_docs[rank] and x["budget"] == budget)
                        vis, text, tokens = list(d["visible_unit_ids"]), d["visible_text"], d["tokens_by_tokenizer"]
                    rows.append(b.row(cid, doc_id, control_source(CONTROL_SWAP, source), budget, vis, text, tokens, 0,
                                      b.fits(tokens, budget)))
                if CONTROL_REVERSED in controls:
                    vis = list(reversed(r["visible_unit_ids"]))
                    text, tokens = b.counted(vis)
                    rows.append(b.row(cid, doc_id, control_source(CONTROL_REVERSED, source), budget, vis, text, tokens,
                                      0, b.fits(tokens, budget)))
    rows.sort(key=lambda r: (r["claim_id"], r["doc_id"], r["source"], r["budget"]))
    return rows
