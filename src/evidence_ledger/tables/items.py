"""Per-item tables: the items behind every decomposition, and the texts an explorer shows of them.

Written beside each accounting's tables: ``results/accounting/study1/``,
``results/accounting/study2/`` (every Study 2 cell set), ``results/account/<system>/`` and every
``account --out`` directory (``items.parquet``, ``item_texts.parquet``); read by the item
explorer (``items.html``) and the ``items`` command.

Conventions: one ``comparison`` is one decomposition of a gain into evidence and answers: the
runs of ``source0`` and ``source1`` of one ``(study, dataset, system, format, parser, budget)``
cell set, named ``study/dataset/system/format/parser/budget`` (``format`` ``official``, ``parser``
``none`` and ``budget`` ``full`` for prediction files, as in ESTIMATES). An item is a unit the
accounting resamples below its clusters: a claim, a KILT item (SciFact: a claim, its abstracts
summed). Cells and components are in points, scaled so that the mean of a column over a
comparison's items is that comparison's estimate (ESTIMATES, replicate -1, part ''), exactly up to
floating-point summation: ``T_ab,i = 100 * multiplier * C_ab,i * K / D`` per run (``K`` items,
``D`` the comparison's summed denominator; 100 * C_ab,i for a strict score), averaged over runs.
"""
from typing import Mapping

import pyarrow as pa

from . import TableSchema

#: the fields of a comparison key, in the key's order
COMPARISON_FIELDS = ("study", "dataset", "system", "format", "parser", "budget")


def comparison_key(fields: Mapping[str, str]) -> str:
    """``study/dataset/system/format/parser/budget`` of ``fields`` (a mapping holding at least
    :data:`COMPARISON_FIELDS`, e.g. a report row with its study): ITEMS' ``comparison``."""
    return "/".join(str(fields[name]) for name in COMPARISON_FIELDS)


#: the four cells and the six components, in the order the tables print them
ITEM_CELLS = ("T00", "T01", "T10", "T11")
ITEM_COMPONENTS = ("gain", "E0", "A1", "A0", "E1", "interaction")

ITEMS = TableSchema(
    name="accounting_items",
    version=1,
    written_by=("study1_items", "study2_items", "account_system"),
    doc="""One row per comparison x item. `gold`: the gold label, or the gold answers joined by
` | ` (KILT). Per source `a` (0, 1), averaged over the runs: `answer_a` the answer score of the
source-a answers (1/0 right or wrong; KILT its answer metric on 0..1), `eligible_a` the share of
runs whose source-a evidence qualifies (FEVER/FEVEROUS eligible, KILT R-precision 1),
`evidence_a` the evidence score where there is one beside the eligibility (KILT R-precision); NaN
where the accounting has none (SciFact). `T00`..`T11`: the item's cells; `gain` = T11 - T00,
`E0` = T01 - T00, `A1` = T11 - T01, `A0` = T10 - T00, `E1` = T11 - T10, `interaction` = E1 - E0;
the mean of each over a comparison's items is its estimate. `pattern`: one character per cell
(T00, T01, T10, T11): `1` the item's numerator is at least 1 in every run (a strict point, a whole
KILT point, a SciFact abstract), `0` it is 0 in every run, `~` otherwise (in some runs, or partly:
a continuous score below 1). `run_T00`..`run_T11`: the item's cell in each run (replicates in
order, the same scale).""",
    schema=pa.schema([
        ("study", pa.string()),
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("format", pa.string()),
        ("parser", pa.string()),
        ("budget", pa.string()),
        ("source0", pa.string()),
        ("source1", pa.string()),
        ("comparison", pa.string()),
        ("item_id", pa.string()),
        ("family_id", pa.string()),
        ("gold", pa.string()),
        ("runs", pa.int64()),
        ("answer_0", pa.float64()),
        ("answer_1", pa.float64()),
        ("eligible_0", pa.float64()),
        ("eligible_1", pa.float64()),
        ("evidence_0", pa.float64()),
        ("evidence_1", pa.float64()),
        *((cell, pa.float64()) for cell in ITEM_CELLS),
        *((component, pa.float64()) for component in ITEM_COMPONENTS),
        ("pattern", pa.string()),
        *((f"run_{cell}", pa.list_(pa.float64())) for cell in ITEM_CELLS),
    ]),
)

#: the kinds of text ITEM_TEXTS holds
TEXT_KINDS = ("claim", "evidence", "answer")

ITEM_TEXTS = TableSchema(
    name="accounting_item_texts",
    version=1,
    written_by=("study1_items", "study2_items", "account_system"),
    doc="""The texts an item explorer shows, one row per text. `kind` `claim`: the claim or
question (`source`, `budget`, `system`, `format` '', `replicate` -1); `evidence`: what one
source's evidence shows of the item (the assembled evidence text where the pipeline assembled
it, at `budget`; for prediction files the cited ids, KILT's page titles where given), per
`replicate` where runs cite their own evidence (-1: the same in every run); `answer`: one run's
answer of one source (the label or answer as given, the raw response where the pipeline
generated it), `system` and `format` the answering system's. Texts are kept whole except cited-id
lists, cut after the ids a scorer reads (noted in the text).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("item_id", pa.string()),
        ("kind", pa.string()),
        ("system", pa.string()),
        ("format", pa.string()),
        ("source", pa.string()),
        ("budget", pa.string()),
        ("replicate", pa.int64()),
        ("text", pa.string()),
    ]),
)
