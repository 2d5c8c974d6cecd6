"""Ingested inputs of the knowledge-conflict benchmarks (WikiContradict, NQ-CC / TQA-CC).

These are per-benchmark tables, written by the ingest stage and read by the conflict stage:
``results/ingest/wikicontradict/instances.parquet`` (WIKICONTRADICT_INSTANCES) and
``results/ingest/{nqcc,tqacc}/records.parquet`` (CONFLICT_QA_RECORDS).
"""
import pyarrow as pa

from . import TableSchema

WIKICONTRADICT_INSTANCES = TableSchema(
    name="wikicontradict_instances",
    version=2,
    written_by=("ingest_wikicontradict",),
    doc="""One row per WikiContradict instance (released RAG-QA CSV, one CSV row each).
`question_id` is the CSV `question_ID` as a string. `contradict_type` is `explicit`
(CSV `Explicit`) or `implicit` (CSV `Implicit (reasoning required)`). `same_passage` is
True when CSV `samepassage` == `Same` (the release's flag, kept as read; the prompts decide
"one passage" from the text, see `wikicontradict/prompts.py`). `title`/`url`
are the Wikipedia article. `passage1_standalone`/`passage2_standalone` hold the stand-alone
passage versions from the full JSON release when it was given, else null.
`passage1_consistent`/`passage2_consistent` hold the release's modified consistent passages
(the paper's Prompt 5.4 context; full-JSON fields `data.wikicontradict.consistent_fields`),
else null. `source_file`/`source_line` point at the first physical line of the CSV record
(1-based). v2 added the consistent passages.""",
    schema=pa.schema([
        ("question_id", pa.string()),
        ("question", pa.string()),
        ("context1", pa.string()),
        ("context2", pa.string()),
        ("answer1", pa.string()),
        ("answer2", pa.string()),
        ("contradict_type", pa.string()),
        ("same_passage", pa.bool_()),
        ("title", pa.string()),
        ("url", pa.string()),
        ("passage1_standalone", pa.string()),
        ("passage2_standalone", pa.string()),
        ("passage1_consistent", pa.string()),
        ("passage2_consistent", pa.string()),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
    ]),
)

CONFLICT_QA_RECORDS = TableSchema(
    name="conflict_qa_records",
    version=2,
    written_by=("ingest_conflict_qa",),
    doc="""One row per NQ-CC / TQA-CC reader-output record (one jsonl line). `dataset` is
`nqcc` or `tqacc`. `question_id` is the record's `id` field when present, else its
1-based line number as a string. `answers` = the gold answer list (`answer`),
`generated_passages` / `retrieved_passages` / `responses` = the record's
`generated_passage` / `retrieved_passage` / `response` lists, kept verbatim and in order
(`responses` is [] for reader-input items, which carry no `response`). `generated_answer` /
`retrieved_answer`: the answers derived from each context when the record gives them, else
null. `ctxs` = the record's `ctxs` list verbatim (the passages in the order the official
reader, RetrieveOrGenerated `read.py`, showed them; the hybrid run's `--merge_order random`
output records its shuffle there), null when the record has no `ctxs` field. v2 added `ctxs`.""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("question_id", pa.string()),
        ("question", pa.string()),
        ("answers", pa.list_(pa.string())),
        ("generated_passages", pa.list_(pa.string())),
        ("retrieved_passages", pa.list_(pa.string())),
        ("responses", pa.list_(pa.string())),
        ("generated_answer", pa.string()),
        ("retrieved_answer", pa.string()),
        ("ctxs", pa.list_(pa.string())),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
    ]),
)
