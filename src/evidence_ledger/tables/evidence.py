"""Evidence tables: what each (claim, document, source, budget) shows a model and submits to a scorer.

`doc_id` is the "document" of the unit of evaluation: '' for FEVER/FEVEROUS (unit = claim),
the abstract id for SciFact (unit = claim x abstract).
"""
import pyarrow as pa

from . import TableSchema

EVIDENCE = TableSchema(
    name="evidence",
    version=2,
    written_by=("assemble_evidence", "import_evidence_source"),
    doc="""One row per (dataset, claim_id, doc_id, source, budget). `source` is the ordering
(e.g. bm25, bge) or an imported provider (e.g. dcuf, unifee) or a control
(none, gold, and per ordering source swap_{source} / reversed_{source}, e.g. swap_bm25). `budget` is the budget name (short, long; 'full' for
unbudgeted provider submissions). `visible_unit_ids` are the units shown to the model, in
order; `visible_text` is the evidence text exactly as rendered in the prompt;
`tokens_by_tokenizer` maps tokenizer name -> token count of `visible_text`;
`scored_unit_ids` is the prefix submitted to the scorer (FEVER 5 sentences; FEVEROUS 5
non-cell + 25 cell-like; SciFact 3 sentences of this abstract); `unresolved` counts ids that
did not resolve to a unit (occurrences; a provider's whole submitted list); `fits_budget` is
False only for controls that cannot fit. `submitted_unit_ids` (v2): a provider's whole
submitted list exactly as written (provider order, repeated and unresolved ids kept), the
candidate list the Study 1 verifier's input window is cut from; null for rows not imported
from a provider submission (orderings, controls). Provider rows: `visible_unit_ids` holds
each resolved unit once, `scored_unit_ids` keeps repeats and unresolved ids (each takes a
scorer slot, as in the official scorers).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("doc_id", pa.string()),
        ("source", pa.string()),
        ("budget", pa.string()),
        ("visible_unit_ids", pa.list_(pa.string())),
        ("visible_text", pa.string()),
        ("tokens_by_tokenizer", pa.map_(pa.string(), pa.int64())),
        ("scored_unit_ids", pa.list_(pa.string())),
        ("unresolved", pa.int64()),
        ("fits_budget", pa.bool_()),
        ("submitted_unit_ids", pa.list_(pa.string())),
    ]),
)
