"""Parsed LLM answers: the hand-off from generation/parsing to scoring."""
import pyarrow as pa

from . import TableSchema

PARSED = TableSchema(
    name="parsed_answers",
    version=1,
    doc="""One row per (model, dataset, claim_id, doc_id, source, budget, format, replicate)
primary-condition response. `replicate` 0 = greedy, 1..5 = the sampled seeds in config
order. `raw_response` is kept verbatim. `strict_label` / `lenient_label` are canonical
benchmark labels (FEVER/FEVEROUS SUPPORTS/REFUTES/NOT ENOUGH INFO; SciFact
SUPPORT/CONTRADICT/NOINFO) or 'INVALID'. `request_key` is the sha256 cache key.""",
    schema=pa.schema([
        ("model", pa.string()),
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("doc_id", pa.string()),
        ("source", pa.string()),
        ("budget", pa.string()),
        ("format", pa.string()),
        ("replicate", pa.int64()),
        ("seed", pa.int64()),
        ("request_key", pa.string()),
        ("raw_response", pa.string()),
        ("strict_label", pa.string()),
        ("lenient_label", pa.string()),
    ]),
)
