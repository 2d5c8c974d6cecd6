"""The summary page's knowledge-conflict sections: WikiContradict and DiffGR.

In:  their report TSVs (``sources.SourceTable``: WikiContradict rates and detection, DiffGR and
     its reader files).
Out: :class:`~evidence_ledger.report.summary.Section` objects.
"""
from __future__ import annotations

from .sources import SourceTable, find_rows, value
from .summary import NOT_RUN, Cell, Section, Table, interval_cell


def wikicontradict_section(rates: SourceTable | None, detection: SourceTable | None) -> Section:
    """Judged rates per model x template over all conflicts, and the 5.2 detection rate."""
    title = "WikiContradict: judged answer rates"
    if rates is None:
        return Section("wikicontradict", title, nav="WikiContradict",
                       absent=NOT_RUN.format("WikiContradict", "wikicontradict"))
    rows = []
    for i in find_rows(rates, conflict_type="all"):
        rows.append(((value(rates, i, "model", "text"),), (value(rates, i, "template", "text"),),
                     (value(rates, i, "n", "count"),)) + tuple(
            (value(rates, i, c, "rate"),) for c in ("correct_rate", "partial_rate", "incorrect_rate",
                                                    "unparseable_rate")))
    blocks = [Table(("Model", "Template", "Responses", "Correct", "Partially correct", "Incorrect", "Unparseable"),
                    tuple(rows), (False, False, True, True, True, True, True),
                    caption="Shares of all judged responses (explicit and implicit conflicts pooled); the four "
                            "shares sum to 1.")]
    if detection is not None and detection.rows:
        det = [((value(detection, i, "model", "text"),), (value(detection, i, "n", "count"),),
                (value(detection, i, "detection_rate", "rate"),)) for i in find_rows(detection, conflict_type="all")]
        blocks.append(Table(("Model", "Responses", "Conflict detected"), tuple(det), (False, True, True),
                            caption="Template 5.2: share of responses that say the passages conflict."))
    return Section("wikicontradict", title, nav="WikiContradict", blocks=tuple(blocks))


def diffgr_cell(table: SourceTable, row: int) -> Cell:
    """DiffGR [interval] of a row where ``diffgr_defined`` is true; where it is false (the
    official code divides by zero and writes 0.0) ``undefined`` and why: an empty subset
    (``n`` is 0) or no hybrid answer matching either single-context answer."""
    if table.rows[row].get("diffgr_defined", "True") != "False":
        return interval_cell(table, row, "diffgr", "ci_low", "ci_high", kind="rate")
    empty = table.rows[row]["n"] in ("0", "0.0")
    why = "empty subset" if empty else "no hybrid answer matches the generated-only or the retrieved-only answer"
    return ("undefined: " + why + " (diffgr_defined ", value(table, row, "diffgr_defined", "text"), ")")


def diffgr_section(diffgr: SourceTable | None, reader_files: SourceTable | None) -> Section:
    """Per reader x dataset x order x subset: answer shares and DiffGR with its interval; the
    same for scored official reader-output files when present."""
    title = "DiffGR: generated vs retrieved context"
    if diffgr is None and reader_files is None:
        return Section("diffgr", title, nav="DiffGR", absent=NOT_RUN.format("DiffGR", "diffgr"))
    blocks = []
    for table, who in ((diffgr, "model"), (reader_files, "reader_set")):
        if table is None or not table.rows:
            continue
        rows = []
        for i in range(len(table.rows)):
            rows.append(tuple((value(table, i, c, "text"),) for c in (who, "dataset", "order", "subset"))
                        + ((value(table, i, "n", "count"),),)
                        + tuple((value(table, i, c, "rate"),) for c in ("gen_ans", "ir_ans", "neither_rate"))
                        + (diffgr_cell(table, i),))
        blocks.append(Table(("Reader" if who == "model" else "Reader-file set", "Dataset", "Order", "Subset", "n",
                             "Gen-Ans", "IR-Ans", "Neither", "DiffGR [interval]"), tuple(rows),
                            (False, False, False, False, True, True, True, True, True),
                            caption="Shares of hybrid answers matching the generated-only or retrieved-only answer; "
                                    "DiffGR = (Gen − IR) / (Gen + IR) with its percentile bootstrap interval; "
                                    "undefined where Gen + IR is zero (diffgr_defined false in the table)."))
    return Section("diffgr", title, nav="DiffGR", blocks=tuple(blocks))
