"""Per-unit indicators: the scorers' output that accounting crosses.

Answers and evidence are scored separately so that any answer source can be combined with
any evidence source: FEVER/FEVEROUS strict_ab[i] = label_correct_a[i] * eligible_b[i]
(FEVER's NEI exemption lives in `eligible`: a gold-NEI claim is always eligible);
SciFact label+rationale F1_ab = 2 C_ab / (P_a + R) with C_ab = sum over abstracts of
label_correct_a * eligible_b, P_a = sum submitted_a, R = gold relevant abstracts.
"""
import pyarrow as pa

from . import TableSchema

ANSWER_INDICATORS = TableSchema(
    name="answer_indicators",
    version=1,
    written_by=("score_answers", "study1_indicators"),
    doc="""One row per answer observation. `system` = model or verifier name; `replicate`:
Study 2 0 = greedy, 1..5 sampled seeds; Study 1 the checkpoint index (1..4). `format`:
codes / labels (Study 2) or 'verifier'. `answer_source`/`answer_budget`: the evidence the
answer was generated from. `parser`: strict / lenient / none. `label_correct`: predicted ==
gold (case-insensitive; INVALID never correct; SciFact: abstract is gold and label equal).
`submitted`: SciFact only, the abstract enters P (valid non-NOINFO label); FEVER/FEVEROUS
always True.""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("format", pa.string()),
        ("replicate", pa.int64()),
        ("parser", pa.string()),
        ("answer_source", pa.string()),
        ("answer_budget", pa.string()),
        ("claim_id", pa.string()),
        ("doc_id", pa.string()),
        ("gold_label", pa.string()),
        ("predicted_label", pa.string()),
        ("label_correct", pa.bool_()),
        ("submitted", pa.bool_()),
    ]),
)

EVIDENCE_INDICATORS = TableSchema(
    name="evidence_indicators",
    version=1,
    written_by=("score_evidence", "study1_indicators"),
    doc="""One row per (dataset, evidence_source, evidence_budget, claim_id, doc_id).
`eligible`: the benchmark's evidence condition on the scored prefix alone (FEVER: a
complete gold group in the first 5, or gold NEI; FEVEROUS: a complete gold set within
5 sentences + 25 cells, NEI included; SciFact: a complete gold rationale within the first 3
sentences of a gold abstract). `unresolved`: submitted ids that did not resolve.""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("evidence_source", pa.string()),
        ("evidence_budget", pa.string()),
        ("claim_id", pa.string()),
        ("doc_id", pa.string()),
        ("eligible", pa.bool_()),
        ("n_scored", pa.int64()),
        ("unresolved", pa.int64()),
    ]),
)

RELEVANT = TableSchema(
    name="relevant_counts",
    version=1,
    written_by=("score_evidence", "study1_indicators"),
    doc="""Per claim, the denominators that do not depend on any system: `gold_label` and
`n_relevant` (SciFact: gold abstracts incl. those never retrieved; FEVER/FEVEROUS: 1).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("gold_label", pa.string()),
        ("n_relevant", pa.int64()),
    ]),
)
