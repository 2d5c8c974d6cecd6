"""Study 1 verifier tables: serialised inputs, training examples seen, answers, unresolved flags.

Central hand-offs written by this stage but declared elsewhere: ANSWER_INDICATORS,
EVIDENCE_INDICATORS and RELEVANT (``tables.scoring``).
"""
import pyarrow as pa

from . import TableSchema

VERIFIER_INPUTS = TableSchema(
    name="verifier_inputs",
    version=2,
    written_by=("serialise_verifier_inputs",),
    doc="""One row per (dataset, split, source, claim_id): the verifier input exactly as built
by `verifier.serialise.serialise_input`. `candidate_ids` are the first `max_candidates`
ids of the provider's submitted list as written (EVIDENCE.submitted_unit_ids: provider order,
unresolved and repeated ids included, each taking a slot; v2) - the selection window;
`used_unit_ids` the resolved units that went in, in order, each once; `unresolved_ids` the
ids of the window that did not resolve (omitted from the input, every occurrence listed);
`provider_unresolved` the source's count of unresolved ids in its whole submitted list
(EVIDENCE.unresolved); `claim_tokens` / `unit_tokens` token counts after
capping (context included in a unit's count); `total_tokens` the length of `input_ids`
(special tokens included, <= max_total_tokens); `sentinel` True when no unit went in and the
sentinel text was used; `claim_truncated` / `units_truncated` how much capping happened; `in_source` False when the
source has no row for the claim (empty candidate list, so the sentinel input).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("split", pa.string()),
        ("source", pa.string()),
        ("claim_id", pa.string()),
        ("gold_label", pa.string()),
        ("in_source", pa.bool_()),
        ("candidate_ids", pa.list_(pa.string())),
        ("used_unit_ids", pa.list_(pa.string())),
        ("unresolved_ids", pa.list_(pa.string())),
        ("provider_unresolved", pa.int64()),
        ("claim_tokens", pa.int64()),
        ("unit_tokens", pa.list_(pa.int64())),
        ("total_tokens", pa.int64()),
        ("sentinel", pa.bool_()),
        ("claim_truncated", pa.bool_()),
        ("units_truncated", pa.int64()),
        ("input_ids", pa.list_(pa.int64())),
    ]),
)

EXAMPLES_SEEN = TableSchema(
    name="verifier_examples_seen",
    version=1,
    written_by=("train_verifier",),
    doc="""One row per training example use by one checkpoint, in the order seen. `update` is
the 1-based optimizer update the example contributed to, `micro_batch` the 0-based
gradient-accumulation micro-batch within it, `position` the 0-based index within the
micro-batch. `claim_id` identifies the example (one example per training claim).""",
    schema=pa.schema([
        ("update", pa.int64()),
        ("micro_batch", pa.int64()),
        ("position", pa.int64()),
        ("claim_id", pa.string()),
        ("label", pa.string()),
    ]),
)

VERIFIER_ANSWERS = TableSchema(
    name="verifier_answers",
    version=1,
    written_by=("predict_verifier",),
    doc="""One row per (checkpoint, source, claim_id). `checkpoint` is the 1-based checkpoint
index; `predicted_label` the argmax over the trained label set; `p_supports`, `p_refutes`,
`p_nei` the softmax probabilities over the trained label set (0.0 for a label outside it).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("checkpoint", pa.int64()),
        ("source", pa.string()),
        ("claim_id", pa.string()),
        ("predicted_label", pa.string()),
        ("p_supports", pa.float64()),
        ("p_refutes", pa.float64()),
        ("p_nei", pa.float64()),
    ]),
)

UNRESOLVED_FLAGS = TableSchema(
    name="study1_unresolved",
    version=2,
    written_by=("study1_indicators",),
    doc="""One row per evaluation claim, sorted by (dataset, claim_id). `unresolved_by_source` maps
evidence source -> unresolved ids inside the source's verifier input window (the first
`verifier.input.max_candidates` ids of its submitted list; VERIFIER_INPUTS.unresolved_ids);
`list_unresolved_by_source` (v2) the unresolved ids in its whole submitted list
(EVIDENCE.unresolved); `duplicates_by_source` (v2) the repeated ids in its whole submitted
list (occurrences of an id already met earlier). `any_unresolved` is True when some source has
an unresolved id in its window; `both_resolved` = not any_unresolved, the restricted Study 1
population ("claims with an unresolved input unit under at least one source" excluded);
`any_unresolved_in_list` / `both_resolved_in_list` (v2) the same over the whole lists
(reported beside it; `accounting.study1.unresolved_scope` picks which one the accounting uses).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("unresolved_by_source", pa.map_(pa.string(), pa.int64())),
        ("list_unresolved_by_source", pa.map_(pa.string(), pa.int64())),
        ("duplicates_by_source", pa.map_(pa.string(), pa.int64())),
        ("any_unresolved", pa.bool_()),
        ("both_resolved", pa.bool_()),
        ("any_unresolved_in_list", pa.bool_()),
        ("both_resolved_in_list", pa.bool_()),
    ]),
)
