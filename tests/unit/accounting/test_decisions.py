"""Study 2 decision labels from the primary family, on hand-made tables and synthetic panels."""
import pandas as pd

from support import accounting_synthetic as syn

from support.defaults import DEFAULTS

from evidence_ledger.accounting.estimands import family_size
from evidence_ledger.accounting.decisions import BOUNDED, DecisionRule, MIXED, REPLICATED, criteria_table, decide
from evidence_ledger.accounting.stage import decision_labels, study2_bootstrap
from evidence_ledger import tables
from evidence_ledger.tables.accounting import DECISION_CRITERIA, DECISION_LABEL, INTERVALS

RULE = DecisionRule(**DEFAULTS["accounting"]["decision"])


def _contrasts(values):
    """values: {(dataset, system, factor): (estimate, lower, upper, seed values)}"""
    rows = [{"dataset": d, "system": s, "factor": f, "estimate": e, "lower": lo, "upper": hi}
            for (d, s, f), (e, lo, hi, _) in values.items()]
    seeds = [{"dataset": d, "system": s, "factor": f, "replicate": i + 1, "value": v}
             for (d, s, f), (_, _, _, sv) in values.items() for i, v in enumerate(sv)]
    return pd.DataFrame(rows), pd.DataFrame(seeds)


def test_three_agreeing_seeds_fail_the_sign_criterion():
    c, s = _contrasts({("scifact", "m", "context"): (3.0, 1.0, 5.0, [1, 2, 3, -1, -2])})
    crit = criteria_table(c, s, RULE)
    row = crit.iloc[0]
    assert (row.magnitude_ok, row.interval_ok, row.seeds_agreeing, row.seeds_ok, row.local_ok) == (
        True, True, 3, False, False)


def test_float_noise_at_zero_does_not_exclude_zero():
    c, s = _contrasts({("scifact", "m", "context"): (3.0, -8.9e-16, 5.0, [1] * 5),
                       ("fever", "m", "context"): (-3.0, -5.0, -1.0e-16, [-1] * 5)})
    crit = criteria_table(c, s, RULE)
    assert not crit["interval_ok"].any()


def test_replication_requires_the_required_dataset():
    good = (3.0, 1.0, 5.0, [1, 1, 1, 1, 1])
    values = {(d, m, "context"): good for d in ("fever", "feverous") for m in ("a", "b")}
    values.update({("scifact", m, "context"): (0.5, -1.0, 1.5, [1, -1, 1, -1, 1]) for m in ("a", "b")})
    c, s = _contrasts(values)
    label = decide(criteria_table(c, s, RULE), RULE, systems=["a", "b"])
    assert label["label"] == MIXED
    values.update({("scifact", m, "context"): good for m in ("a", "b")})
    c, s = _contrasts(values)
    label = decide(criteria_table(c, s, RULE), RULE, systems=["a", "b"])
    assert label["label"] == REPLICATED and label["datasets"] == "fever,feverous,scifact"


def test_replication_requires_both_models_and_the_same_direction():
    up, down = (3.0, 1.0, 5.0, [1] * 5), (-3.0, -5.0, -1.0, [-1] * 5)
    c, s = _contrasts({("fever", "a", "format"): up, ("fever", "b", "format"): down,
                       ("scifact", "a", "format"): up, ("scifact", "b", "format"): up})
    assert decide(criteria_table(c, s, RULE), RULE, systems=["a", "b"])["label"] == MIXED


def test_all_intervals_inside_the_bound_is_bounded_stability():
    c, s = _contrasts({(d, m, f): (0.1, -1.9, 2.0, [1, -1, 1, -1, 1]) for d in ("fever", "scifact")
                       for m in ("a", "b") for f in ("format", "context")})
    assert decide(criteria_table(c, s, RULE), RULE)["label"] == BOUNDED


def _pipeline_label(tmp_path, planted):
    syn.write_study2_inputs(tmp_path, n_claims=200, planted=planted)
    out, params = syn.run_study2(tmp_path, tmp_path / "out")
    boot_params = {k: params[k] for k in ("datasets", "models", "sources", "budgets", "formats", "seed_replicates")}
    study2_bootstrap(counts=out["counts"], reference=None, family="primary", **boot_params, draws=400, alpha=0.05,
                     family_size=family_size("primary", len(params["datasets"]) * len(params["models"])),
                     seed=20260916, batch_size=128, intervals_out=tmp_path / "i.parquet",
                     summary_out=tmp_path / "i.tsv")
    outputs = {k: tmp_path / f"{k}.out" for k in ("criteria", "criteria_tsv", "label", "label_tsv")}
    decision_labels(intervals=tmp_path / "i.parquet", estimates=out["estimates"], reference=None,
                    parser=params["parser"], seed_replicates=params["seed_replicates"], models=params["models"],
                    magnitude=2.0, min_agreeing_seeds=4, min_datasets=2, required_dataset="scifact", bound=2.0,
                    **{f"{k}_out": v for k, v in outputs.items()})
    crit = tables.read_frame(outputs["criteria"], DECISION_CRITERIA)
    label = tables.read_frame(outputs["label"], DECISION_LABEL).iloc[0]
    intervals = tables.read_frame(tmp_path / "i.parquet", INTERVALS)
    return crit, label, intervals


def test_planted_context_effect_with_null_format_effect_is_replicated_dependence(tmp_path):
    crit, label, intervals = _pipeline_label(tmp_path, {"fever": 5.0, "scifact": 5.0})
    assert label["label"] == REPLICATED and label["factor"] == "context" and label["direction"] == 1
    ctx = crit[crit["factor"] == "context"]
    assert len(ctx) == 4 and ctx["local_ok"].all() and (ctx["seeds_agreeing"] == 5).all()
    fmt = crit[crit["factor"] == "format"]
    assert fmt["estimate"].abs().max() < 1e-9 and not fmt["local_ok"].any() and fmt["within_bound"].all()
    assert intervals["tail"].tolist() == [0.05 / (2 * 8)] * 8   # Bonferroni over the 8 comparisons


def test_no_planted_effect_is_bounded_stability(tmp_path):
    crit, label, _ = _pipeline_label(tmp_path, {"fever": 0.0, "scifact": 0.0})
    assert label["label"] == BOUNDED and crit["within_bound"].all()


def test_effect_on_one_dataset_only_is_restricted_mixed_evidence(tmp_path):
    crit, label, _ = _pipeline_label(tmp_path, {"fever": 5.0, "scifact": 0.0})
    assert label["label"] == MIXED
    assert set(crit.loc[crit["local_ok"], "dataset"]) == {"fever"}
