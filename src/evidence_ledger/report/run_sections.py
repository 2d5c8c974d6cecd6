"""The summary page's sections about the run itself: the run-kind banner, the headline, the
public substitutes of author-held inputs, the provenance, and any report table shown whole.

In:  the provenance table, the Study 1 intervals and the Study 2 label (``sources.SourceTable``).
Out: :class:`~evidence_ledger.report.summary.Section` objects (None where a section has nothing to say).
"""
from __future__ import annotations

from .sources import SourceTable, find_row, value
from .summary import Paragraph, Section, Table, interval_cell, paper_cell


def run_kind_paragraph(provenance: SourceTable | None) -> Paragraph | None:
    """``Run kind: <kind> (<why>).`` from the provenance table's ``run`` rows ``kind`` and
    ``kind_reason``; None without a provenance table or a kind row."""
    kind = find_row(provenance, section="run", key="kind")
    if kind is None:
        return None
    reason = find_row(provenance, section="run", key="kind_reason")
    why = () if reason is None else (" (", value(provenance, reason, "value", "text"), ")")
    return Paragraph(("Run kind: ", value(provenance, kind, "value", "text")) + why + (".",))


def headline_section(s1_intervals: SourceTable | None, label: SourceTable | None,
                     provenance: SourceTable | None = None) -> Section:
    """At a glance: the run kind (demo, rehearsal or paper; :func:`run_kind_paragraph`), the
    Study 1 gain with its interval beside the paper's, and the recorded Study 2 label beside
    the paper's (whichever of the two studies ran)."""
    kind = run_kind_paragraph(provenance)
    blocks = [] if kind is None else [kind]
    r = find_row(s1_intervals, population="all", quantity="gain")
    if r is not None:
        blocks.append(Paragraph(("Study 1 gain T11 − T00: ",) + interval_cell(s1_intervals, r, "estimate", "lower",
                                                                                "upper")
                                + (" points; paper: ",) + paper_cell(s1_intervals, r) + (".",)))
    if label is not None and label.rows:
        blocks.append(Paragraph(("Study 2 decision: ", value(label, 0, "label", "text"), "; paper: ",
                                 value(label, 0, "reference_label", "text"), ".")))
    numbers = len(blocks) - (kind is not None)
    return Section("headline", "At a glance", blocks=tuple(blocks),
                   absent="" if numbers else "neither Study 1 intervals nor a Study 2 label in this run")


RUN_KIND_NOTES = {
    "demo": ("This is the embedded demo run, not a reproduction of the paper: ",
             ". Its numbers test that the pipeline runs end to end; they are not expected to be near the "
             "paper's values, and a difference from them is no failed reproduction."),
    "rehearsal": ("This is the CPU rehearsal of the paper run, not a reproduction of the paper: ",
                  ". Its numbers test the paper run's plan on small data; they are not expected to be near the "
                  "paper's values, and a difference from them is no failed reproduction."),
}


PUBLIC_ROUTE_NOTE = ("This run follows the paper's design on public files only: each input only the study's authors "
                     "hold was replaced by a public substitute, so its numbers are not expected to equal the paper's.")


def substitutes_paragraph(provenance: SourceTable) -> Paragraph | None:
    """The provenance table's ``substitute`` rows as one paragraph, a line per author-held input
    and what ran instead; None when the run has none."""
    rows = [i for i, row in enumerate(provenance.rows) if row["section"] == "substitute"]
    if not rows:
        return None
    fragments: list = ["Author-held inputs and the public substitutes that ran instead:"]
    for i in rows:
        fragments += ["\n", value(provenance, i, "key", "text"), " → ", value(provenance, i, "value", "text"), "."]
    return Paragraph(tuple(fragments))


def run_kind_section(provenance: SourceTable | None) -> Section | None:
    """A banner for the top of the page when the provenance table's ``run kind`` is the demo or
    the rehearsal (why, from ``kind_reason``), or when a paper run replaced author-held inputs by
    public substitutes (``substitute`` rows; listed by :func:`substitutes_section`); None for a
    paper run on the paper's own inputs or without a provenance table. What ran in each model
    slot is in the provenance section (:func:`provenance_section`)."""
    if provenance is None:
        return None
    kind_row = find_row(provenance, section="run", key="kind")
    kind = None if kind_row is None else provenance.rows[kind_row]["value"]
    if kind in RUN_KIND_NOTES:
        lead, tail = RUN_KIND_NOTES[kind]
        reason = find_row(provenance, section="run", key="kind_reason")
        banner = Paragraph((lead,) + ((value(provenance, reason, "value", "text"),) if reason is not None else ())
                           + (tail,))
        return Section("run-kind", f"Not a paper run: the {kind}", nav="Run kind", blocks=(banner,))
    if substitutes_paragraph(provenance) is not None:
        return Section("run-kind", "The paper's design on public files", nav="Run kind",
                       blocks=(Paragraph((PUBLIC_ROUTE_NOTE,)),))
    return None


def substitutes_section(provenance: SourceTable | None) -> Section | None:
    """The public substitutes that ran for author-held inputs (:func:`substitutes_paragraph`),
    right after the headline; None when the run has none."""
    paragraph = None if provenance is None else substitutes_paragraph(provenance)
    if paragraph is None:
        return None
    return Section("substitutes", "Public substitutes for author-held inputs", nav="Substitutes", blocks=(paragraph,))


def provenance_section(provenance: SourceTable | None) -> Section:
    """Departures from the paper (e.g. a quantized judge), what ran in each model slot (a local
    build or directory says which Hub model it stands in for), then config hash, commit (and
    dirty flag), every model id with its revision and the substitutes of author-held inputs."""
    title = "Provenance of this run"
    if provenance is None:
        return Section("provenance", title, nav="Provenance", absent="no provenance table")
    departures = tuple(Paragraph(("Departure from the paper: ", value(provenance, i, "value", "text"), "."))
                       for i, row in enumerate(provenance.rows) if row["section"] == "departure")
    ran = tuple(((value(provenance, i, "key", "text"),), (value(provenance, i, "value", "text"),))
                for i, row in enumerate(provenance.rows) if row["section"] == "ran")
    slots = (Table(("Model slot", "What ran"), ran, (False, False),
                   caption="From the provenance table: what ran in each configured model slot."),) if ran else ()
    rows = [((value(provenance, i, "key", "text"),), (value(provenance, i, "value", "text"),))
            for i, row in enumerate(provenance.rows) if row["section"] in ("run", "model", "substitute")]
    table = Table(("Item", "Value"), tuple(rows), (False, False),
                  caption="From the provenance table (package versions and backend settings are listed there too).")
    return Section("provenance", title, nav="Provenance", blocks=departures + slots + (table,))


def whole_table_section(key: str, title: str, table: SourceTable) -> Section:
    """Any report TSV shown whole: text cells as they are, numbers to 4 significant digits."""
    kinds = {c: "text" if any(_not_number(r[c]) for r in table.rows) else "number" for c in table.columns}
    rows = tuple(tuple((value(table, i, c, kinds[c]),) for c in table.columns) for i in range(len(table.rows)))
    numeric = tuple(kinds[c] == "number" for c in table.columns)
    return Section(key, title, nav=title, blocks=(Table(tuple(table.columns), rows, numeric),))


def _not_number(text: str) -> bool:
    try:
        float(text)
        return False
    except ValueError:
        return True
