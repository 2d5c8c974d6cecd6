"""Tables of the knowledge-conflict stage (WikiContradict and DiffGR).

WikiContradict (``results/wikicontradict/``):
* WC_REQUESTS   ``{model}/requests.parquet``   - one row per (instance, template) prompt.
* WC_RESPONSES  ``{model}/responses.parquet``  - the request rows with the model's raw response.
* WC_JUDGEMENTS ``{model}/judgements.parquet`` - the responses with the judge's raw output and label.
* WC_HUMAN_JUDGED ``judge_agreement/judgements.parquet`` - human-labelled responses with the
  judge's output on them (for judge agreement).

DiffGR (``results/diffgr/``):
* DIFFGR_READER_ANSWERS ``{model}/{dataset}/reader_answers.parquet`` - one row per question x
  reader run (x context order for the hybrid run).
* DIFFGR_LENGTHS ``{model}/{dataset}/lengths.parquet`` - per question, the chosen generated
  passage and the word lengths of the context pair.
* DIFFGR_CC_ITEMS ``cc_items.parquet`` - per model x dataset x order x question, where the CC
  construction put the question and the class of the hybrid answer.
"""
import pyarrow as pa

from . import TableSchema
from .generation import MESSAGE

_SAMPLING = [
    ("temperature", pa.float64()),
    ("top_p", pa.float64()),
    ("top_k", pa.int64()),
    ("repetition_penalty", pa.float64()),
    ("max_new_tokens", pa.int64()),
    ("seed", pa.int64()),
]
_PROVENANCE = [
    ("cache_key", pa.string()),
    ("n_output_tokens", pa.int64()),
    ("finish_reason", pa.string()),
    ("backend", pa.string()),
    ("model_id", pa.string()),
    ("model_revision", pa.string()),
    ("weights_hash", pa.string()),
]

_WC_KEYS = [
    ("model", pa.string()),
    ("instance_id", pa.string()),
    ("template", pa.string()),
    ("template_set_version", pa.int64()),
    ("conflict_type", pa.string()),
    ("gold_answers", pa.list_(pa.string())),
]

WC_REQUESTS = TableSchema(
    name="wikicontradict_requests",
    version=1,
    written_by=("wikicontradict_requests",),
    doc="""One row per (model, WikiContradict instance, template). `template` is a template id
of `conflict.wikicontradict.TEMPLATES` (1, 2, 3, 4, 5, 5.1, 5.2, control);
`conflict_type` is explicit / implicit; `gold_answers` are the answers the judge expects for
this template. `messages` is the single user message; sampling is greedy (temperature 0).
`request_id` = sha256 of (messages, sampling, seed, max_new_tokens).""",
    schema=pa.schema([*_WC_KEYS, ("messages", pa.list_(MESSAGE)), *_SAMPLING, ("request_id", pa.string())]),
)

WC_RESPONSES = TableSchema(
    name="wikicontradict_responses",
    version=1,
    written_by=("wikicontradict_generate",),
    doc="""WC_REQUESTS keys with the model's verbatim `raw_response` and its provenance
(cache key, output tokens, finish reason, backend, model id / revision / weights hash).""",
    schema=pa.schema([*_WC_KEYS, ("request_id", pa.string()), ("raw_response", pa.string()), *_PROVENANCE]),
)

WC_JUDGEMENTS = TableSchema(
    name="wikicontradict_judgements",
    version=1,
    written_by=("wikicontradict_judge",),
    doc="""One row per judged response. `judge_raw` is the judge's verbatim output,
`judge_label` one of correct / partially correct / incorrect / unparseable, `judge_reason`
why a judgement is unparseable ('' otherwise). `detection` is the template-5.2 conflict
detection parsed from the response (yes / no / unparseable; '' for other templates).
`judge_model` names the judge, `judge_prompt_version` the rubric/prompt version,
`judge_request_id` the judge request's id (cache lookups).""",
    schema=pa.schema([
        *_WC_KEYS,
        ("raw_response", pa.string()),
        ("detection", pa.string()),
        ("judge_model", pa.string()),
        ("judge_prompt_version", pa.int64()),
        ("judge_request_id", pa.string()),
        ("judge_raw", pa.string()),
        ("judge_label", pa.string()),
        ("judge_reason", pa.string()),
    ]),
)

WC_HUMAN_JUDGED = TableSchema(
    name="wikicontradict_human_judged",
    version=1,
    written_by=("wikicontradict_judge_human",),
    doc="""One row per human-labelled response (the human-label file): the human label and
the judge's verbatim output and parsed label on the same response. `model` is the model that
wrote the response; `conflict_type` comes from the instance table.""",
    schema=pa.schema([
        ("item_id", pa.string()),
        ("instance_id", pa.string()),
        ("template", pa.string()),
        ("model", pa.string()),
        ("conflict_type", pa.string()),
        ("human_label", pa.string()),
        ("judge_model", pa.string()),
        ("judge_request_id", pa.string()),
        ("judge_raw", pa.string()),
        ("judge_label", pa.string()),
        ("judge_reason", pa.string()),
    ]),
)

DIFFGR_READER_ANSWERS = TableSchema(
    name="diffgr_reader_answers",
    version=2,
    written_by=("diffgr_generate",),
    doc="""One row per (model, dataset, question, reader run[, order]). `run` is hybrid /
generated / retrieved / closed_book; `order` is the hybrid run's context-order factor level
(random = the official `--merge_order random` run, generated_first, retrieved_first) and ''
otherwise; `context_order` is the arrangement that hybrid reader saw (generated_first /
retrieved_first; '' for the other runs). `messages` are the optional reader system message
and the user prompt. `raw_response` is verbatim and is what the scorer compares (SQuAD
normalisation happens in scoring); `answer` = `raw_response` with outer whitespace stripped,
for display. Greedy, `max_new_tokens` from config. v2 added `context_order`.""",
    schema=pa.schema([
        ("model", pa.string()),
        ("dataset", pa.string()),
        ("question_id", pa.string()),
        ("run", pa.string()),
        ("order", pa.string()),
        ("context_order", pa.string()),
        ("messages", pa.list_(MESSAGE)),
        *_SAMPLING,
        ("request_id", pa.string()),
        ("raw_response", pa.string()),
        ("answer", pa.string()),
        *_PROVENANCE,
    ]),
)

DIFFGR_LENGTHS = TableSchema(
    name="diffgr_lengths",
    version=2,
    written_by=("diffgr_generate",),
    doc="""One row per (dataset, question): `generated_index` = position of the generated
passage chosen (closest word count to the retrieved passage), `gen_words` / `ret_words` =
word counts (`conflict.diffgr_pipeline.count_words`), `length_ratio` = gen / ret (inf when
ret = 0 < gen, NaN when both are 0), `length_rel_diff` = |gen - ret| / ret (0 when both are 0),
`within_threshold` = length_rel_diff <= the configured threshold. v2 added `length_ratio`.""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("question_id", pa.string()),
        ("generated_index", pa.int64()),
        ("gen_words", pa.int64()),
        ("ret_words", pa.int64()),
        ("length_ratio", pa.float64()),
        ("length_rel_diff", pa.float64()),
        ("within_threshold", pa.bool_()),
    ]),
)

DIFFGR_CC_ITEMS = TableSchema(
    name="diffgr_cc_items",
    version=1,
    written_by=("diffgr_score",),
    doc="""One row per (model, dataset, order, question) of the end-to-end DiffGR run.
`stage` = where the official CC construction put the question: `length_removed` (only when
the length restriction is on), `unknown`, `not_in_context`, `parametric`, `both_right`,
`both_wrong`, `AIG` or `AIR`. `hybrid_class` = IR-Ans / Gen-Ans / LLM-Ans / Others for AIG
and AIR rows, '' otherwise. `gen_ans` / `ir_ans` / `llm_ans` / `com_ans` are the four reader
answers (com = hybrid in this order).""",
    schema=pa.schema([
        ("model", pa.string()),
        ("dataset", pa.string()),
        ("order", pa.string()),
        ("question_id", pa.string()),
        ("stage", pa.string()),
        ("hybrid_class", pa.string()),
        ("gen_ans", pa.string()),
        ("ir_ans", pa.string()),
        ("llm_ans", pa.string()),
        ("com_ans", pa.string()),
    ]),
)
