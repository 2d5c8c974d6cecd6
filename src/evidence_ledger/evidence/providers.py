"""Provider evidence submissions (Study 1 evidence sources): import, and export of orderings.

In (import): a JSON-lines submission, one line per claim::

    {"id": CLAIM_ID, "predicted_evidence": [ITEM, ...]}

with ITEM one of: a unit id string as released (FEVEROUS ``"Page_sentence_3"``,
``"Page_cell_0_1_2"``; FEVER ``"Page::3"``); a FEVEROUS triple ``[page, type, position]``
(-> ``"{page}_{type}_{position}"``, e.g. ``["Page", "cell", "0_1_2"]``); a FEVER pair
``[page, line]`` (-> ``"{page}::{line}"``). The list is kept exactly as the provider wrote it:
provider order, repeated ids and ids that do not resolve to a unit included
(``submitted_unit_ids``). What a model is shown (``visible_unit_ids``) is the resolved ids,
each unit once (first place). The *scored* submission keeps every repeat and every unresolved
id: the official scorers truncate the submitted list in order, by the element type written in
the id, so an unresolved id and a repeated id each take one of the 5 sentence / 25 cell slots
(``scored_unit_ids`` is the scored prefix of the full provider list). ``unresolved`` counts
the submitted ids (occurrences) that do not resolve; :func:`repeated_id_count` the repeats.
Out: EVIDENCE rows with budget ``full`` (all resolved units visible, token counts under
every budget tokenizer, scored prefix per the benchmark's caps, the full submitted list);
a claim of the claims table with no line in the submission gets an empty row (and is
counted in the summary). A malformed line, a claim id not in the claims table or a claim id
given twice raises ``InputError`` naming file, line and field.

Export: ORDERING rows -> submission lines with unit ids as strings (``export_submission``).
"""
from __future__ import annotations

import json

from ..errors import InputError
from ..files.jsonl import iter_jsonl
from ..files.safe_files import write_text_atomic
from ..vocabulary import fever_unit_id, feverous_element_id, split_feverous_element_id
from .prefix import scored_prefix


def item_to_unit_id(item, path, line: int) -> str:
    """Canonical unit id of one ``predicted_evidence`` item (see module doc)."""
    if isinstance(item, str):
        return item
    if isinstance(item, list) and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in item):
        if len(item) == 3:
            return feverous_element_id(item[0], f"{item[1]}_{item[2]}")
        if len(item) == 2:
            return fever_unit_id(item[0], item[1])
    raise InputError(path, line, "predicted_evidence",
                     f"item {item!r} is neither a unit id, a [page, type, position] triple nor a [page, line] pair")


def read_submission(path, claim_ids: set[str]) -> dict[str, list[str]]:
    """claim id -> predicted unit ids from a JSON-lines file, exactly as written (provider order,
    repeated ids kept)."""
    out: dict[str, list[str]] = {}
    for n, rec in iter_jsonl(path):
        if "id" not in rec:
            raise InputError(path, n, "id", "missing claim id")
        cid = rec["id"]
        if isinstance(cid, bool) or not isinstance(cid, (str, int)):
            raise InputError(path, n, "id", f"claim id must be a string or integer, got {cid!r}")
        cid = str(cid)
        if cid not in claim_ids:
            raise InputError(path, n, "id", f"claim {cid!r} is not in the claims table")
        if cid in out:
            raise InputError(path, n, "id", f"claim {cid!r} appears twice")
        items = rec.get("predicted_evidence")
        if not isinstance(items, list):
            raise InputError(path, n, "predicted_evidence", "missing or not a list")
        out[cid] = [item_to_unit_id(it, path, n) for it in items]
    return out


def resolve_ids(ids: list[str], known) -> tuple[list[str], int]:
    """(ids that resolve, in order, each once at its first place; count of the occurrences of
    ids that do not resolve)."""
    kept = list(dict.fromkeys(u for u in ids if u in known))
    return kept, sum(1 for u in ids if u not in known)


def repeated_id_count(ids: list[str]) -> int:
    """Occurrences of an id already met earlier in ``ids`` (``[a, a, b, a]`` -> 2)."""
    return len(ids) - len(set(ids))


def submitted_kind(unit_id: str, units) -> str:
    """Kind of a submitted id: the unit's kind when it resolves, else the type in the id
    (FEVEROUS ``Page_<type>_<pos>`` as the official scorer splits it; anything else a sentence)."""
    if unit_id in units:
        return units[unit_id].kind
    if "::" not in unit_id and "_" in unit_id:
        return split_feverous_element_id(unit_id)[1]
    return "sentence"


def import_submission_rows(builder, claim_ids: list[str], submission: dict[str, list[str]],
                           source: str) -> tuple[list[dict], dict]:
    """EVIDENCE rows (budget ``full``) for every claim in ``claim_ids``; plus a summary dict."""
    rows = []
    missing = unresolved_total = predicted_total = repeated_total = claims_with_repeats = 0
    for cid in sorted(claim_ids):
        ids = submission.get(cid)
        if ids is None:
            missing += 1
            ids = []
        kept, unresolved = resolve_ids(ids, builder.units)
        predicted_total += len(ids)
        unresolved_total += unresolved
        repeats = repeated_id_count(ids)
        repeated_total += repeats
        claims_with_repeats += repeats > 0
        text, tokens = builder.counted(kept)
        row = builder.row(cid, "", source, "full", kept, text, tokens, unresolved, True, submitted=ids)
        row["scored_unit_ids"] = scored_prefix(ids, [submitted_kind(u, builder.units) for u in ids],
                                               builder.caps.non_cell, builder.caps.cell, builder.caps.cell_like_kinds)
        rows.append(row)
    summary = {"source": source, "claims": len(claim_ids), "claims_without_submission": missing,
               "predicted_ids": predicted_total, "unresolved_ids": unresolved_total,
               "duplicate_ids": repeated_total, "claims_with_duplicates": claims_with_repeats}
    return rows, summary


def export_submission(orderings: list[dict], path, max_ids: int | None = None) -> int:
    """Write ORDERING rows as FEVEROUS-style submission lines (sorted by claim id); return lines."""
    lines = []
    for o in sorted(orderings, key=lambda r: r["claim_id"]):
        ids = list(o["unit_ids"])[: max_ids] if max_ids else list(o["unit_ids"])
        lines.append(json.dumps({"id": o["claim_id"], "predicted_evidence": ids}, ensure_ascii=False))
    write_text_atomic(path, "".join(l + "\n" for l in lines))
    return len(lines)
