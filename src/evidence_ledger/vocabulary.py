"""Names shared by several packages, each defined once (docs/accounting.md, README "Extending").

In:  nothing (this module imports nothing from ``evidence_ledger``, so every package can read it).
Out: the answer label a parser gives an unparseable response (:data:`INVALID`); the greedy
     control evidence sources and their naming (:data:`CONTROLS`, :func:`control_source`,
     :func:`control_sources`, :func:`control_of`); the code-mapping names and the PARSED
     ``format`` they give (:data:`PRIMARY_MAPPING`, :func:`parsed_format`); the pipeline's
     unit-id formats (FEVER :func:`fever_unit_id`, FEVEROUS :func:`feverous_element_id`,
     SciFact :func:`scifact_unit_id`, each with its ``split_*`` inverse); the Study 2 comparison families
     (:data:`STUDY2_FAMILIES`); the DiffGR context orders (:data:`DIFFGR_ORDERS`); the columns of
     the WikiContradict RAG-QA CSV (:data:`WIKICONTRADICT_CSV_COLUMNS`: its reader and the
     preflight's header check).

Benchmark facts (labels, metric, unit of evaluation, scorer, prompts) are not here but in
``benchmark_registry``; defaults of config values are in ``config/defaults.yaml`` only.
"""
from __future__ import annotations

import functools

from typing import Iterable

#: the label of a response that no parser can read (never correct, never submitted)
INVALID = "INVALID"

# --- greedy control evidence sources (the paper's Appendix F controls) ---------------------
#: controls: no evidence, another claim's evidence, gold evidence, the source's order reversed
CONTROL_NONE, CONTROL_SWAP, CONTROL_GOLD, CONTROL_REVERSED = "none", "swap", "gold", "reversed"
CONTROLS = (CONTROL_NONE, CONTROL_SWAP, CONTROL_GOLD, CONTROL_REVERSED)
#: controls built from each ordering source's own evidence, named ``{control}_{source}``
PER_SOURCE_CONTROLS = (CONTROL_SWAP, CONTROL_REVERSED)


def control_source(control: str, ordering_source: str) -> str:
    """Evidence-source name of ``control`` built from ``ordering_source`` (``swap``, ``bm25``
    -> ``swap_bm25``); ``none`` and ``gold`` are ordering-free and keep their names."""
    if control not in CONTROLS:
        raise ValueError(f"unknown control {control!r}; expected one of {CONTROLS}")
    return f"{control}_{ordering_source}" if control in PER_SOURCE_CONTROLS else control


def control_sources(controls: Iterable[str], ordering_sources: Iterable[str]) -> list[str]:
    """Every control evidence source of ``controls`` x ``ordering_sources`` (config order)."""
    ordering_sources = list(ordering_sources)
    out: list[str] = []
    for c in controls:
        for s in (ordering_sources if c in PER_SOURCE_CONTROLS else [None]):
            name = control_source(c, s) if s is not None else c
            if name not in out:
                out.append(name)
    return out


#: how the greedy controls cross the other factors (config ``generation.controls.design``):
#: ``crossed`` asks every control in every ``controls.formats`` x ``controls.budgets``, swap and
#: reversed from every primary source and every alternative code mapping under every primary
#: source; ``one_per_unit`` asks each control kind once per unit (one format, one budget, swap,
#: reversed and the first alternative mapping from the first primary source only)
CONTROL_DESIGNS = ("crossed", "one_per_unit")


def control_design(design: str, ordering_sources: Iterable[str],
                   alternative_mappings: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(ordering sources the per-source controls and the code mappings are built from,
    alternative code mappings asked)`` of a control design (:data:`CONTROL_DESIGNS`)."""
    ordering_sources, alternative_mappings = list(ordering_sources), list(alternative_mappings)
    if design == "crossed":
        return ordering_sources, alternative_mappings
    if design == "one_per_unit":
        return ordering_sources[:1], alternative_mappings[:1]
    raise ValueError(f"generation.controls.design: unknown design {design!r}; expected one of {CONTROL_DESIGNS}")


def control_of(source: str) -> str | None:
    """The control an evidence source belongs to (``swap_bge`` -> ``swap``), or None for an
    ordering / provider source."""
    if source in CONTROLS and source not in PER_SOURCE_CONTROLS:
        return source
    head, sep, _ = source.partition("_")
    return head if sep and head in PER_SOURCE_CONTROLS else None


# --- code mappings and the PARSED format ---------------------------------------------------
#: the code mapping of the primary codes prompts (config ``generation.code_mappings.primary``)
PRIMARY_MAPPING = "primary"


def parsed_format(answer_format: str, code_mapping: str) -> str:
    """The PARSED ``format`` value of a request: 'codes', 'labels' or 'codes:{mapping}' for
    an alternative code mapping."""
    if answer_format == "codes" and code_mapping != PRIMARY_MAPPING:
        return f"codes:{code_mapping}"
    return answer_format


def is_alternative_mapping_format(fmt: str) -> bool:
    """True for a PARSED format of an alternative code mapping (``codes:{mapping}``)."""
    return ":" in fmt


# --- unit ids -------------------------------------------------------------------------------
#: FEVEROUS element types that count against the official scorer's cell budget
FEVEROUS_CELL_LIKE_TYPES = ("cell", "item", "table_caption", "header_cell")


def fever_unit_id(page: str, line: int | str) -> str:
    """The pipeline's FEVER unit id of a wiki sentence: ``"{page}::{line}"``."""
    return f"{page}::{line}"


def split_fever_unit_id(unit_id: str) -> tuple[str, int]:
    """FEVER unit id ``"{page}::{line}"`` -> ``(page, line)`` with an int line.

    The page is everything before the last ``::`` (page titles may contain ``::``).
    """
    page, sep, line = unit_id.rpartition("::")
    if not sep or not line.lstrip("-").isdigit():
        raise ValueError(f"FEVER unit id {unit_id!r} is not of the form 'page::line'")
    return (page, int(line))


def scifact_unit_id(doc_id, sentence: int) -> str:
    """The pipeline's SciFact unit id of an abstract sentence: ``"{doc_id}:{sentence}"``."""
    return f"{doc_id}:{sentence}"


def split_scifact_unit_id(unit_id: str) -> tuple[str, int]:
    """SciFact unit id ``"{doc_id}:{sentence}"`` -> ``(doc_id, sentence)``."""
    doc, sep, sent = unit_id.rpartition(":")
    if not sep or not sent.isdigit():
        raise ValueError(f"SciFact unit id {unit_id!r} is not of the form 'doc_id:sentence'")
    return (doc, int(sent))


def feverous_element_id(page: str, element: str) -> str:
    """A FEVEROUS element id as released: ``"{page}_{element}"``, with ``element`` the page
    JSON's id (``sentence_3``, ``cell_0_1_2``, ``header_cell_0_0_1``, ``table_caption_0``,
    ``title``) or a ``type_position`` pair joined by ``_``."""
    return f"{page}_{element}"


@functools.lru_cache(maxsize=1 << 16)  # the same ids recur across the runs of a system and across gold sets
def split_feverous_element_id(element_id: str) -> tuple[str, str, str]:
    """Released id -> ``(page, type, position)`` exactly as the official evaluate.py splits it.

    ``"Korean Air_cell_1_19_0"`` -> ``("Korean Air", "cell", "1_19_0")``;
    ``"Page_header_cell_0_0_1"`` -> ``("Page", "header_cell", "0_0_1")``;
    ``"Page_title"`` -> ``("Page", "title", "")``.
    """
    parts = element_id.split("_")
    if len(parts) < 2:
        raise ValueError(f"FEVEROUS element id {element_id!r} has no '_<type>' part")
    if "table_caption" not in element_id and "header_cell" not in element_id:
        return (parts[0], parts[1], "_".join(parts[2:]))
    return (parts[0], "_".join(parts[1:3]), "_".join(parts[3:]))


# --- Study 2 comparison families and DiffGR orders -----------------------------------------
#: the Study 2 comparison families, each bootstrapped with its own Bonferroni size
#: (``accounting.estimands.family_contrasts``; docs/accounting.md)
STUDY2_FAMILIES = ("primary", "exploratory", "crossed")
#: every comparison family: Study 1's, then Study 2's
COMPARISON_FAMILIES = ("study1",) + STUDY2_FAMILIES

#: DiffGR hybrid-reader context arrangements: which passage comes first
DIFFGR_GENERATED_FIRST = "generated_first"
DIFFGR_RETRIEVED_FIRST = "retrieved_first"
#: DiffGR context orders: ``random`` = the official ``read.py --merge_order random`` run, then
#: the two fixed arrangements (config ``diffgr.context_orders``)
DIFFGR_RANDOM = "random"
DIFFGR_ORDERS = (DIFFGR_RANDOM, DIFFGR_GENERATED_FIRST, DIFFGR_RETRIEVED_FIRST)

#: columns of the released WikiContradict RAG-QA CSV (``WikiContradict_dataset_v1_rag_qa.csv``)
WIKICONTRADICT_CSV_COLUMNS = ("question_ID", "question", "context1", "context2", "answer1", "answer2",
                              "contradictType", "samepassage", "merged_context", "ref_answer",
                              "WikipediaArticleTitle", "url")
