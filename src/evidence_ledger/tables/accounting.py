"""Accounting and bootstrap tables: cluster counts, point estimates, intervals, decisions.

Written under ``results/accounting/study1/`` and ``results/accounting/study2/`` by the
accounting stage (``evidence_ledger.accounting``: ``stage``, ``intervals``, ``decisions``).

Conventions shared by the tables below:

* ``study``: ``study1`` or ``study2``; ``population``: ``all`` or (Study 1) ``resolved``
  (claims with no unresolved submitted unit under either source).
* Scores and effects are in points (percent x 100 units of the 0..1 metric).
* ``replicate``: -1 = the average over replicates (Study 1 checkpoints, Study 2 the five
  sampled seeds); otherwise the replicate index (0 = greedy in Study 2).
* ``format`` / ``budget`` / ``factor`` / ``part`` are ``''`` where they do not apply.
* ``reference*``: the paper's published value for the same quantity, joined from the
  configured reference file (NaN where the paper gives none).
"""
import pyarrow as pa

from . import TableSchema

CLUSTER_COUNTS = TableSchema(
    name="accounting_cluster_counts",
    version=1,
    written_by=("study1_accounting", "study2_accounting", "study2_parser_sensitivity", "account_system"),
    doc="""Integer scoring counts summed per resampling cluster (Study 1: claim; Study 2:
claim family), per replicate and per count statistic; every bootstrap metric is a function
of these sums. `kind` = `C` (numerator: answers of `answer_source` at `answer_budget` scored
with evidence of `evidence_source` at `evidence_budget`; SciFact: correctly labelled and
rationalised abstracts, FEVER/FEVEROUS: strictly correct claims) or `D` (denominator of the
answer side: SciFact P_a + R, FEVER/FEVEROUS the number of claims; evidence columns `''`).
`metric`: `strict` (score = 100 C / D) or `f1` (score = 100 * 2C / D).""",
    schema=pa.schema([
        ("study", pa.string()),
        ("population", pa.string()),
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("parser", pa.string()),
        ("metric", pa.string()),
        ("cluster_id", pa.string()),
        ("replicate", pa.int64()),
        ("kind", pa.string()),
        ("format", pa.string()),
        ("answer_source", pa.string()),
        ("answer_budget", pa.string()),
        ("evidence_source", pa.string()),
        ("evidence_budget", pa.string()),
        ("value", pa.int64()),
    ]),
)

CLUSTER_SCORES = TableSchema(
    name="accounting_cluster_scores",
    version=1,
    written_by=("account_system",),
    doc="""CLUSTER_COUNTS of a continuous answer metric (KILT: `metric` `kilt`): the same columns
and rows, with `value` a float64 carried as computed. `kind` `C`: the item's answer metric of
`answer_source` (accuracy, EM, F1 or ROUGE-L on 0..1) times whether the provenance of
`evidence_source` reaches R-precision 1; `kind` `D`: 1 per item. Score = 100 C / D, the official
KILT-<metric>. Integer metrics keep CLUSTER_COUNTS (int64), so their files do not change.""",
    schema=CLUSTER_COUNTS.schema.set(CLUSTER_COUNTS.schema.get_field_index("value"), pa.field("value", pa.float64())),
)

ESTIMATES = TableSchema(
    name="accounting_estimates",
    version=1,
    written_by=("study1_accounting", "study2_accounting", "account_system"),
    doc="""Point estimates, computed in exact rational arithmetic from the corpus totals and
converted to float once. `quantity` names the estimand (T00..T11, gain, E0, A1, A0, E1,
interaction, S00, S11, source_gain, Ebar = (E0+E1)/2, F(u,v) crossed-budget evidence gains,
accuracy_*, macro_f1_*, eligibility_*, eq4_*, crossed-budget components
`input_first_input` ...); `factor` = `format` / `context` for Study 2 contrasts (level 1
minus level 0 of the configured levels, averaged over the other factor), `part` = a gold
class (class contributions) or `identical` / `different` (partition by identical valid
answers), both on the full denominator.""",
    schema=pa.schema([
        ("study", pa.string()),
        ("population", pa.string()),
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("parser", pa.string()),
        ("quantity", pa.string()),
        ("factor", pa.string()),
        ("format", pa.string()),
        ("budget", pa.string()),
        ("part", pa.string()),
        ("replicate", pa.int64()),
        ("value", pa.float64()),
        ("reference", pa.float64()),
        ("reference_lower", pa.float64()),
        ("reference_upper", pa.float64()),
    ]),
)

INTERVALS = TableSchema(
    name="accounting_intervals",
    version=2,
    written_by=("study1_bootstrap", "study2_bootstrap", "account_system"),
    doc="""Bootstrap percentile intervals. `family`: study1 / primary / exploratory / crossed;
`tail`: the lower quantile level (alpha / (2 * family_size)); `lower`/`upper`: linear
percentile bounds at `tail` and `1 - tail`; `estimate`: the point estimate; `boot_mean`,
`boot_sd`: of the draws; `n_clusters`: resampling units; `n_seed_indices`: seed indices
drawn per draw (0 = replicates averaged, not resampled); `n_comparisons`: comparisons
actually in the family; `family_size`: the Bonferroni size (Study 2 families: derived from
their comparisons, so equal to `n_comparisons`; Study 1: 1, pointwise intervals); `in_family`:
false for a companion contrast drawn with the family at its tail but not counted in it (the
exploratory file's context effect on E0, the paper's Table 7 row; Study 1's cells T00..T11).""",
    schema=pa.schema([
        ("study", pa.string()),
        ("family", pa.string()),
        ("population", pa.string()),
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("quantity", pa.string()),
        ("factor", pa.string()),
        ("estimate", pa.float64()),
        ("lower", pa.float64()),
        ("upper", pa.float64()),
        ("boot_mean", pa.float64()),
        ("boot_sd", pa.float64()),
        ("tail", pa.float64()),
        ("n_draws", pa.int64()),
        ("seed", pa.int64()),
        ("batch_size", pa.int64()),
        ("n_clusters", pa.int64()),
        ("n_seed_indices", pa.int64()),
        ("family_size", pa.int64()),
        ("n_comparisons", pa.int64()),
        ("in_family", pa.bool_()),
        ("reference", pa.float64()),
        ("reference_lower", pa.float64()),
        ("reference_upper", pa.float64()),
    ]),
)

DECISION_CRITERIA = TableSchema(
    name="decision_criteria",
    version=1,
    written_by=("decision_labels",),
    doc="""One row per primary contrast (dataset x system x factor on E0): which of the paper's Study 2
criteria it met. `direction` +1/-1/0 (sign of the estimate); `seeds_agreeing`: sampled
seeds whose own contrast has that sign; `local_ok` = magnitude_ok & interval_ok & seeds_ok;
`within_bound`: the adjusted interval lies inside [-bound, +bound].""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("factor", pa.string()),
        ("estimate", pa.float64()),
        ("lower", pa.float64()),
        ("upper", pa.float64()),
        ("direction", pa.int64()),
        ("magnitude_ok", pa.bool_()),
        ("interval_ok", pa.bool_()),
        ("seeds_agreeing", pa.int64()),
        ("n_seeds", pa.int64()),
        ("seeds_ok", pa.bool_()),
        ("local_ok", pa.bool_()),
        ("within_bound", pa.bool_()),
    ]),
)

DECISION_LABEL = TableSchema(
    name="decision_label",
    version=1,
    written_by=("decision_labels",),
    doc="""The recorded outcome label (`replicated dependence`, `bounded stability`,
`restricted/mixed evidence`) with the factor/direction/datasets that qualified (if any),
a one-line reason, and the paper's recorded label for comparison.""",
    schema=pa.schema([
        ("label", pa.string()),
        ("factor", pa.string()),
        ("direction", pa.int64()),
        ("datasets", pa.string()),
        ("reason", pa.string()),
        ("reference_label", pa.string()),
    ]),
)

INVALID_RATES = TableSchema(
    name="invalid_rates",
    version=1,
    written_by=("study2_accounting",),
    doc="""Share of claim-condition observations (claim x budget x replicate, covering both
answer sources and, for SciFact, all abstracts) with at least one INVALID response, per
dataset x system x format, pooled over budgets and all replicates (greedy included).""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("parser", pa.string()),
        ("format", pa.string()),
        ("n_observations", pa.int64()),
        ("n_with_invalid", pa.int64()),
        ("rate", pa.float64()),
        ("reference", pa.float64()),
    ]),
)

PATTERN_TRACES = TableSchema(
    name="pattern_traces",
    version=1,
    written_by=("study2_accounting",),
    doc="""Units (claim, or SciFact claim x abstract) whose four scores (S00, S01, S10, S11)
at matched budgets form `pattern` `1010` (same credit, only source-0 evidence eligible) or
`0101` (only source-1 evidence eligible), per condition and replicate. Claim texts are
joined by the report stage.""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("format", pa.string()),
        ("budget", pa.string()),
        ("replicate", pa.int64()),
        ("claim_id", pa.string()),
        ("doc_id", pa.string()),
        ("pattern", pa.string()),
        ("gold_label", pa.string()),
        ("predicted_0", pa.string()),
        ("predicted_1", pa.string()),
        ("eligible_0", pa.bool_()),
        ("eligible_1", pa.bool_()),
    ]),
)

COVERAGE = TableSchema(
    name="accounting_coverage",
    version=1,
    written_by=("study1_accounting", "study2_accounting", "account_system"),
    doc="""Input bookkeeping per panel: answer rows used, answer (claim, doc) pairs lacking an
evidence row for some evidence source x budget (scored as not eligible), population claims,
clusters, claims without any answer row (SciFact: contribute only to R).""",
    schema=pa.schema([
        ("study", pa.string()),
        ("population", pa.string()),
        ("dataset", pa.string()),
        ("system", pa.string()),
        ("parser", pa.string()),
        ("item", pa.string()),
        ("count", pa.int64()),
    ]),
)
