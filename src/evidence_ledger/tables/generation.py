"""Generation tables: planned requests, cached/gathered responses, parsed answers.

* ``REQUESTS``  - one row per planned (unit, source, budget, format, code mapping, replicate)
  request of one model x dataset, with the full chat messages and sampling parameters.
* ``CACHE_ENTRIES`` - one row per generated request in a response-cache shard, keyed by the
  sha256 cache key (see ``evidence_ledger.generation.cache``).
* ``RESPONSES`` - the gathered responses of one model x dataset: one row per *unique*
  request (``request_id``), with the provenance of the output.
* ``PARSED`` - the hand-off to scoring: one row per request row, with both parsers' labels.
"""
import pyarrow as pa

from . import TableSchema

MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])

REQUESTS = TableSchema(
    name="generation_requests",
    version=1,
    written_by=("plan_requests",),
    doc="""One row per planned request of one model x dataset. `condition` is `primary` or a
greedy control (`none`, `swap`, `gold`, `reversed`, `code_mapping`). `format` is `codes` or
`labels`; `code_mapping` names the A/B/C mapping used by a codes prompt ('' for labels).
`replicate` 0 = greedy, 1..5 = sampled seeds in config order. `seed` = deterministic hash of
(dataset, claim_id, doc_id, replicate), shared across sources, formats and budgets; 0 for
greedy rows (greedy decoding uses no seed, so identical greedy prompts are one request).
`messages` are the chat messages before the model's chat template is applied.
`request_id` = sha256 of (messages, sampling parameters, seed, max_new_tokens): identical
requests share it and are generated once. `gold_label` is carried for downstream joins
only; prompts and parsers never read it. `prompt_chars` counts characters of the messages.""",
    schema=pa.schema([
        ("model", pa.string()),
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("doc_id", pa.string()),
        ("source", pa.string()),
        ("budget", pa.string()),
        ("format", pa.string()),
        ("code_mapping", pa.string()),
        ("condition", pa.string()),
        ("replicate", pa.int64()),
        ("seed", pa.int64()),
        ("template_id", pa.string()),
        ("template_version", pa.int64()),
        ("messages", pa.list_(MESSAGE)),
        ("temperature", pa.float64()),
        ("top_p", pa.float64()),
        ("top_k", pa.int64()),
        ("repetition_penalty", pa.float64()),
        ("max_new_tokens", pa.int64()),
        ("request_id", pa.string()),
        ("shard", pa.int64()),
        ("gold_label", pa.string()),
        ("prompt_chars", pa.int64()),
    ]),
)

CACHE_ENTRIES = TableSchema(
    name="generation_cache_entries",
    version=1,
    written_by=("generate", "wikicontradict_generate", "wikicontradict_judge", "wikicontradict_judge_human", "diffgr_generate"),
    doc="""One row per generated request in one cache shard file. `cache_key` = sha256 of
the model identity (model id, revision or weights hash, dtype), backend, chat template
hash, exact rendered prompt, sampling parameters, seed and max_new_tokens. `identity_json`
holds the model/backend identity (library versions, device, prefix caching) that
produced the text.""",
    schema=pa.schema([
        ("cache_key", pa.string()),
        ("text", pa.string()),
        ("n_prompt_tokens", pa.int64()),
        ("n_output_tokens", pa.int64()),
        ("finish_reason", pa.string()),
        ("identity_json", pa.string()),
    ]),
)

RESPONSES = TableSchema(
    name="generation_responses",
    version=2,
    written_by=("generate", "gather_responses"),
    doc="""One row per unique request (`request_id`) of one model x dataset (or one shard of
it). `raw_response` is verbatim. Provenance columns: `backend` (vllm / transformers / openai /
a plugin's name), `library_versions` (e.g. 'torch=2.13.0;transformers=5.19.0;vllm=0.32.0'),
`device` (for a served model: 'server <base URL>'), `model_id`, `model_revision` (Hub revision,
as declared in config for a served model; '' for local models), `weights_hash` (sha256 of local
weight/config/tokenizer files, '' for Hub models), `dtype`, `chat_template_hash` ('' where a
server renders the template), `prefix_caching`; what a server reported with the answer:
`served_model` (the model name it answered with) and `system_fingerprint` ('' for in-process
backends and servers that report none).""",
    schema=pa.schema([
        ("model", pa.string()),
        ("dataset", pa.string()),
        ("request_id", pa.string()),
        ("cache_key", pa.string()),
        ("raw_response", pa.string()),
        ("n_prompt_tokens", pa.int64()),
        ("n_output_tokens", pa.int64()),
        ("finish_reason", pa.string()),
        ("backend", pa.string()),
        ("library_versions", pa.string()),
        ("device", pa.string()),
        ("model_id", pa.string()),
        ("model_revision", pa.string()),
        ("weights_hash", pa.string()),
        ("dtype", pa.string()),
        ("chat_template_hash", pa.string()),
        ("prefix_caching", pa.bool_()),
        ("served_model", pa.string()),
        ("system_fingerprint", pa.string()),
    ]),
)

PARSED = TableSchema(
    name="parsed_answers",
    version=1,
    written_by=("parse_responses",),
    doc="""One row per (model, dataset, claim_id, doc_id, source, budget, format, replicate)
primary-condition response. `replicate` 0 = greedy, 1..5 = the sampled seeds in config
order. `raw_response` is kept verbatim. `strict_label` / `lenient_label` are canonical
benchmark labels (FEVER/FEVEROUS SUPPORTS/REFUTES/NOT ENOUGH INFO; SciFact
SUPPORT/CONTRADICT/NOINFO) or 'INVALID'. `request_key` is the sha256 cache key.
Greedy controls are rows too: `source` none / gold / swap_{source} / reversed_{source} (formats codes,
labels), and alternative code mappings as `format` = 'codes:{mapping name}' (e.g.
'codes:rotated'); primary rows have `format` exactly 'codes' or 'labels'.""",
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
