"""The summary page's Study 2 sections: the decision, the crossed comparison, Tables 6 and 7,
the controls, answer accuracy, the partition of the evidence gain and the INVALID rates.

In:  the Study 2 report TSVs (``sources.SourceTable``), the parser the page reports.
Out: :class:`~evidence_ledger.report.summary.Section` objects.
"""
from __future__ import annotations

from typing import Sequence

from ..tables.items import ITEM_COMPONENTS, comparison_key
from .item_links import items_href
from .sources import MISSING_TEXT, SourceTable, find_row, find_rows, value
from .summary import (NOT_RUN, Figure, Link, Paragraph, Section, Table, cell, interval_cell, interval_of, paper_cell,
                      pivot_rows)


def decision_section(label: SourceTable | None, criteria: SourceTable | None, primary: SourceTable | None,
                     forest_png: bytes | None) -> Section:
    """The recorded Study 2 label beside the paper's, its reason, the criteria table (each
    primary contrast with its interval and the paper's value) and Figure 1."""
    title = "Study 2: decision label and criteria"
    if label is None:
        return Section("study2", title, nav="Study 2 decision", absent=NOT_RUN.format("Study 2", "study2"))
    blocks = []
    for i in range(len(label.rows)):
        blocks.append(Paragraph(("Recorded label: ", value(label, i, "label", "text"), ". The paper recorded: ",
                                 value(label, i, "reference_label", "text"), ".")))
        blocks.append(Paragraph(("Reason: ", value(label, i, "reason", "text"), ".")))
    if criteria is not None:
        rows = []
        for i, row in enumerate(criteria.rows):
            p = find_row(primary, dataset=row["dataset"], system=row["system"], factor=row["factor"],
                         quantity="E0")
            rows.append((
                (value(criteria, i, "dataset", "text"),), (value(criteria, i, "system", "text"),),
                (value(criteria, i, "factor", "text"),),
                interval_cell(criteria, i, "estimate", "lower", "upper"),
                (MISSING_TEXT,) if primary is None else paper_cell(primary, p),
                (value(criteria, i, "direction", "count"),),
                (value(criteria, i, "magnitude_ok", "flag"),), (value(criteria, i, "interval_ok", "flag"),),
                (value(criteria, i, "seeds_agreeing", "count"), " of ", value(criteria, i, "n_seeds", "count")),
                (value(criteria, i, "local_ok", "flag"),), (value(criteria, i, "within_bound", "flag"),),
            ))
        blocks.append(Table(
            ("Dataset", "System", "Factor", "Effect on E0 [interval]", "Paper [interval]", "Sign",
             "Magnitude met", "Interval excludes 0", "Seeds agreeing", "All local criteria", "Within bound"),
            tuple(rows), (False, False, False, True, True, True, False, False, True, False, False),
            caption="One row per primary contrast (format or context effect on E0, points, Bonferroni-adjusted "
                    "over the primary family)."))
    if forest_png is not None:
        blocks.append(Figure(forest_png, "Figure 1: forest plot of the primary contrasts",
                             "Figure 1: the primary contrasts with their adjusted intervals; the grey band is the "
                             "stability bound."))
    return Section("study2", title, nav="Study 2 decision", blocks=tuple(blocks))


def crossed_section(crossed: SourceTable | None) -> Section:
    """The crossed-budget components of the context contrast: one row per component (in the
    table's order), one column per dataset x system, each cell the estimate [interval] and,
    below it, the paper's value where it gives one."""
    title = "Study 2: crossed-budget components of the context effect"
    if crossed is None:
        return Section("crossed", title, nav="Crossed budgets", absent=NOT_RUN.format("Study 2", "study2"))
    components = list(dict.fromkeys(r["quantity"] for r in crossed.rows))
    panels = list(dict.fromkeys((r["dataset"], r["system"]) for r in crossed.rows))
    rows = []
    for quantity in components:
        cells = [(quantity.removeprefix("crossed."),)]
        for dataset, system in panels:
            r = find_row(crossed, dataset=dataset, system=system, quantity=quantity)
            run, paper = interval_cell(crossed, r, "estimate", "lower", "upper"), paper_cell(crossed, r)
            cells.append(run if paper == (MISSING_TEXT,) else run + ("\npaper ",) + paper)
        rows.append(tuple(cells))
    header = ("Component",) + tuple(f"{d} / {s}" for d, s in panels)
    table = Table(header, tuple(rows), (False,) + (True,) * len(panels),
                  caption="Points; input_first.input + input_first.scoring = scoring_first.scoring + "
                          "scoring_first.input = context (the context effect on E0, split by which budget changes "
                          "first); intervals Bonferroni-adjusted over the crossed family.")
    return Section("crossed", title, nav="Crossed budgets", blocks=(table,))


def endpoints_section(endpoints: SourceTable | None, primary: SourceTable | None,
                      exploratory: SourceTable | None) -> Section:
    """Tables 6 and 7 of the paper's Study 2 (``endpoints.tsv``): Table 6 per dataset x system
    x quantity, one column per budget; Table 7 the context endpoints with their intervals,
    beside the paper's value from the reference columns of the primary / exploratory
    intervals table of the row's family."""
    title = "Study 2: endpoints (Tables 6 and 7)"
    if endpoints is None:
        return Section("endpoints", title, nav="Tables 6, 7", absent=NOT_RUN.format("Study 2", "study2"))
    budgets = list(dict.fromkeys(r["budget"] for r in endpoints.rows if r["table"] == "6"))
    blocks = [Table(("Dataset", "System", "Quantity") + tuple(budgets),
                    pivot_rows(endpoints, ("dataset", "system", "quantity"), "budget", budgets,
                               lambda t, r: cell(t, r, "estimate", "points"), table="6"),
                    (False, False, False) + (True,) * len(budgets),
                    caption=f"Table 6: per budget, seed-averaged points (from {endpoints.path}).")]
    families = {"primary": primary, "exploratory": exploratory}
    rows = []
    for i in find_rows(endpoints, table="7"):
        row = endpoints.rows[i]
        source = families.get(row["family"])
        ref = find_row(source, dataset=row["dataset"], system=row["system"], quantity=row["quantity"],
                       factor=row["factor"])
        rows.append(tuple((value(endpoints, i, c, "text"),) for c in ("dataset", "system", "quantity", "factor",
                                                                      "family"))
                    + (interval_cell(endpoints, i, "estimate", "lower", "upper"),
                       (MISSING_TEXT,) if source is None else paper_cell(source, ref)))
    blocks.append(Table(("Dataset", "System", "Quantity", "Factor", "Family", "This run [interval]",
                         "Paper [interval]"), tuple(rows), (False,) * 5 + (True, True),
                        caption=f"Table 7: context endpoints with the interval of their family (from "
                                f"{endpoints.path}); the paper's values from the reference columns of the "
                                "family's intervals table."))
    return Section("endpoints", title, nav="Tables 6, 7", blocks=tuple(blocks))


CONTROL_QUANTITIES = ("E_none", "E_control", "gain", "agreement")


def controls_section(controls: SourceTable | None, generations: SourceTable | None, parser: str) -> Section:
    """The greedy controls (``controls.tsv``, primary parser): per dataset x system x format x
    control the units, feasibility and E without / with the control, their difference and the
    answer agreement, each with its pointwise interval; and the control generations counted
    (``control_generations.tsv``) beside the paper's count where it gives one."""
    title = "Study 2: greedy controls"
    if controls is None:
        return Section("controls", title, nav="Controls", absent=NOT_RUN.format("Study 2", "study2"))
    keys = ("dataset", "system", "format", "control", "budget")
    rows = pivot_rows(controls, keys, "quantity", CONTROL_QUANTITIES, interval_of(), parser=parser)
    extra = []
    for row in rows:
        r = find_rows(controls, parser=parser, **{k: c[0].text for k, c in zip(keys, row)})[0]
        extra.append(row[:len(keys)] + ((value(controls, r, "units", "count"), " of ",
                                         value(controls, r, "units_total", "count")),
                                        (value(controls, r, "feasibility", "points"),)) + row[len(keys):])
    blocks = [Table(("Dataset", "System", "Format", "Control", "Budget", "Units", "Feasible %") + CONTROL_QUANTITIES,
                    tuple(extra), (False,) * 5 + (True,) * 6,
                    caption=f"Points with pointwise intervals, parser {parser} (from {controls.path}).")]
    if generations is not None:
        gen = tuple(tuple((value(generations, i, c, "text"),) for c in ("system", "dataset", "condition"))
                    + ((value(generations, i, "rows", "count"),), (value(generations, i, "value", "count"),),
                       cell(generations, i, "reference", "count")) for i in range(len(generations.rows)))
        blocks.append(Table(("System", "Dataset", "Condition", "Rows", "Generations", "Paper"), gen,
                            (False, False, False, True, True, True),
                            caption=f"Control generations after reuse of identical requests (from "
                                    f"{generations.path})."))
    return Section("controls", title, nav="Controls", blocks=tuple(blocks))


def answer_accuracy_section(accuracy: SourceTable | None, sources: Sequence[str], parser: str) -> Section:
    """Study 2 answer accuracy (``answer_accuracy.tsv``, primary parser, seed average): per
    dataset x system x format x budget, one column per answer source."""
    title = "Study 2: answer accuracy"
    if accuracy is None:
        return Section("answer-accuracy", title, nav="Answer accuracy", absent=NOT_RUN.format("Study 2", "study2"))
    rows = pivot_rows(accuracy, ("dataset", "system", "format", "budget"), "answer_source", sources, interval_of(),
                      parser=parser, replicate="-1", quantity="answer_accuracy")
    return Section("answer-accuracy", title, nav="Answer accuracy", blocks=(Table(
        ("Dataset", "System", "Format", "Budget") + tuple(f"answers from {s}" for s in sources), rows,
        (False,) * 4 + (True,) * len(sources),
        caption=f"Percent of answers correct (INVALID counts as wrong), parser {parser}, mean of the seeds, "
                f"pointwise intervals (from {accuracy.path})."),))


PARTITION_PARTS = ("identical", "different")


PARTITION_KEYS = ("dataset", "system", "quantity", "format", "budget")


def cell_set_items_link(keys: dict[str, str], parser: str) -> tuple:
    """The cell of a Study 2 row (``keys``: its dataset, system, format, budget and quantity)
    that links to its cell set's items in the explorer, grouped by the quantity where it is a
    component."""
    key = comparison_key({**keys, "study": "study2", "parser": parser})
    component = keys["quantity"] if keys["quantity"] in ITEM_COMPONENTS else None
    return (Link("items", items_href(key, component)),)


def partition_section(partition: SourceTable | None, parser: str) -> Section:
    """The identical-answer partition (``partition.tsv``, primary parser, seed average): E0 and
    E1 split into the claims whose two sources gave identical valid answers and the rest, each
    row linked to its cell set's items (the item explorer)."""
    title = "Study 2: identical-answer partition of E0 and E1"
    if partition is None:
        return Section("partition", title, nav="Partition", absent=NOT_RUN.format("Study 2", "study2"))
    rows = pivot_rows(partition, PARTITION_KEYS, "part", PARTITION_PARTS,
                      lambda t, r: cell(t, r, "value", "points"), parser=parser, replicate="-1")
    rows = tuple(row + (cell_set_items_link({k: c[0].text for k, c in zip(PARTITION_KEYS, row)}, parser),)
                 for row in rows)
    return Section("partition", title, nav="Partition", blocks=(Table(
        ("Dataset", "System", "Quantity", "Format", "Budget") + PARTITION_PARTS + ("Items",), rows,
        (False,) * 5 + (True, True, False),
        caption=f"Points on the full denominator, so the two parts add up to the quantity; parser {parser}, mean "
                f"of the seeds (from {partition.path}); items: the cell set's items grouped by the quantity "
                "(the item explorer)."),))


def invalid_rates_section(rates: SourceTable | None, paper_parser: str) -> Section:
    """Observations with an INVALID response (``invalid_rates.tsv``) per dataset x system x
    parser x format, the paper's rate only beside rows of ``paper_parser`` (the parser the
    paper's rates were counted with; the table's reference join has no parser key)."""
    title = "Study 2: observations with an INVALID response"
    if rates is None:
        return Section("invalid", title, nav="INVALID rates", absent=NOT_RUN.format("Study 2", "study2"))
    rows = []
    for i, row in enumerate(rates.rows):
        rows.append(tuple((value(rates, i, c, "text"),) for c in ("dataset", "system", "parser", "format"))
                    + ((value(rates, i, "n_observations", "count"),), (value(rates, i, "n_with_invalid", "count"),),
                       (value(rates, i, "rate", "points"),),
                       paper_cell(rates, i) if row["parser"] == paper_parser else (MISSING_TEXT,)))
    return Section("invalid", title, nav="INVALID rates", blocks=(Table(
        ("Dataset", "System", "Parser", "Format", "Observations", "With INVALID", "Percent", "Paper"), tuple(rows),
        (False,) * 4 + (True,) * 4,
        caption=f"Percent of claim-condition observations with at least one INVALID response (from {rates.path}); "
                f"the paper's rates are its {paper_parser} parser's, so they sit beside {paper_parser} rows only."),))
