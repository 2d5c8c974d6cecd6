"""Canonical ingestion tables: ``claims`` and ``units`` (one per dataset).

Unit ids: FEVER ``"{page}::{line}"``; FEVEROUS ids as released (``Page_sentence_3``,
``Page_cell_0_1_2``, ``Page_header_cell_0_0_1``, ``Page_item_0_2``,
``Page_table_caption_0``, ``Page_title``, ``Page_section_1``); SciFact ``"{doc_id}:{sent}"``.
"""
import pyarrow as pa

from . import TableSchema

GOLD_ABSTRACT = pa.struct([("doc_id", pa.string()), ("label", pa.string())])

CLAIMS = TableSchema(
    name="claims",
    version=2,
    written_by=("ingest_<dataset>", "sample_claims"),
    doc="""One row per claim. `label` is the canonical claim label (FEVER/FEVEROUS:
SUPPORTS / REFUTES / NOT ENOUGH INFO; SciFact: SUPPORT / CONTRADICT per abstract in
`gold_abstracts`, claim-level `label` = NOINFO when it has no gold abstract, else the label
of its first gold abstract). `evidence_groups` lists the gold evidence sets as unit ids;
a claim is covered by a set when all its ids are submitted. `source_file`/`source_line`
point at the record this row came from (1-based line). `unresolved_ids` (v2): gold unit ids
that did not resolve to a unit of the ingested corpus, kept in `evidence_groups` and counted
here (reader flag ``on_unresolved="count"``); ``[]`` when every id resolved; null when the
claims were loaded without a corpus (resolution not checked, e.g. FEVER without wiki-pages).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("claim", pa.string()),
        ("label", pa.string()),
        ("evidence_groups", pa.list_(pa.list_(pa.string()))),
        ("gold_abstracts", pa.list_(GOLD_ABSTRACT)),
        ("cited_doc_ids", pa.list_(pa.string())),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
        ("unresolved_ids", pa.list_(pa.string())),
    ]),
)


UNITS = TableSchema(
    name="units",
    version=1,
    written_by=("ingest_<dataset>",),
    doc="""One row per evidence unit of the corpus. `kind` is one of
sentence / cell / header_cell / table_caption / item / title / section. `position` is the
unit's order within its document (document order). `context` is optional surrounding
text (page title, section heading, table header) used by serialisers; '' when none.""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("unit_id", pa.string()),
        ("doc_id", pa.string()),
        ("kind", pa.string()),
        ("position", pa.int64()),
        ("text", pa.string()),
        ("context", pa.string()),
    ]),
)

DOCUMENTS = TableSchema(
    name="documents",
    version=1,
    written_by=("ingest_<dataset>",),
    doc="""One row per retrievable document (wiki page or abstract): `doc_id`, `title`
and `text` (the concatenated unit texts, what the page-level BM25 index sees).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("doc_id", pa.string()),
        ("title", pa.string()),
        ("text", pa.string()),
    ]),
)
