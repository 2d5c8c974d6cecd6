"""The verifier's rule adapters chained on Parquet files: serialise -> train -> predict -> indicators."""
import random

import pytest

from support.defaults import PREDICT_DEFAULTS, TRAINING_DEFAULTS, serialisation_limits

from evidence_ledger import tables
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.ingest import CLAIMS, UNITS
from evidence_ledger.tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS
from evidence_ledger.tables.verifier import UNRESOLVED_FLAGS, VERIFIER_ANSWERS, VERIFIER_INPUTS
from evidence_ledger.verifier.indicators import run_study1_indicators
from evidence_ledger.verifier.predict import run_predict
from evidence_ledger.verifier.serialise import run_serialise
from evidence_ledger.demo.stage import build_demo_verifier
from evidence_ledger.verifier.train import BaseModel, TrainingSettings, run_train

from support.verifier_world import demo_like_world


def second_source(rows):
    """Source b: the gold sentence alone for even claims, one unresolved id first for claim '10001'."""
    out = []
    for r in rows:
        ids = list(r["visible_unit_ids"])
        gold = ids[1]
        visible = [gold] if int(r["claim_id"]) % 2 == 0 else ids[:1]
        submitted = (["Gone_sentence_0"] if r["claim_id"] == "10001" else []) + visible
        row = dict(r, source="provider_b", visible_unit_ids=visible, scored_unit_ids=submitted,
                   submitted_unit_ids=submitted, unresolved=len(submitted) - len(visible))
        out.append(row)
    return out


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pipeline")
    rng = random.Random(3)
    train_c, train_u, train_e = demo_like_world(120, 0, rng)
    dev_c, dev_u, dev_e = demo_like_world(30, 10_000, rng)
    p = {k: tmp / f"{k}.parquet" for k in ("claims_train", "claims_dev", "units", "provider_a", "provider_b")}
    tables.write_table(CLAIMS.from_rows(train_c), p["claims_train"], CLAIMS)
    tables.write_table(CLAIMS.from_rows(dev_c), p["claims_dev"], CLAIMS)
    tables.write_table(UNITS.from_rows(train_u + dev_u), p["units"], UNITS)
    tables.write_table(EVIDENCE.from_rows(train_e + dev_e), p["provider_a"], EVIDENCE)
    tables.write_table(EVIDENCE.from_rows(second_source(dev_e)), p["provider_b"], EVIDENCE)
    base_dir = tmp / "verifier_base"
    build_demo_verifier(claims=p["claims_train"], units=p["units"], spec={"vocab_size": 400}, out=base_dir)
    base = BaseModel(str(base_dir))
    limits = serialisation_limits()
    run_serialise(p["claims_train"], p["units"], {"provider_a": p["provider_a"]}, base, limits, "train",
                  tmp / "inputs_train.parquet")
    sources = {"provider_a": p["provider_a"], "provider_b": p["provider_b"]}
    run_serialise(p["claims_dev"], p["units"], sources, base, limits, "dev", tmp / "inputs_dev.parquet")
    ckpts = []
    for k, seed in ((1, 11), (2, 12)):
        ckpts.append(tmp / f"ckpt{k}")
        run_train(tmp / "inputs_train.parquet", base,
                  TrainingSettings(**TRAINING_DEFAULTS, seed=seed, final_update=3, batch_size=8, grad_accumulation=2, learning_rate=1e-3,
                                   warmup_ratio=0.0, label_set=("SUPPORTS", "REFUTES")), ckpts[-1], checkpoint=k)
    run_predict(ckpts, tmp / "inputs_dev.parquet", tmp / "answers.parquet", system="verifier", batch_size=7,
                precision=PREDICT_DEFAULTS["precision"])
    outputs = {k: tmp / f"{k}_ind.parquet" for k in ("answers", "evidence", "relevant", "unresolved")}
    run_study1_indicators(tmp / "answers.parquet", p["claims_dev"], sources, tmp / "inputs_dev.parquet", outputs)
    return tmp, ckpts, sources, outputs, p


def test_every_checkpoint_answers_every_dev_claim_from_both_sources(pipeline):
    tmp, *_ = pipeline
    answers = tables.read_frame(tmp / "answers.parquet", VERIFIER_ANSWERS)
    assert len(answers) == 2 * 2 * 30
    assert answers.groupby(["checkpoint", "source"]).claim_id.nunique().tolist() == [30, 30, 30, 30]
    inputs = tables.read_frame(tmp / "inputs_dev.parquet", VERIFIER_INPUTS)
    assert (inputs.total_tokens <= 512).all() and len(inputs) == 60
    train = tables.read_frame(tmp / "inputs_train.parquet", VERIFIER_INPUTS)
    assert set(train.source) == {"provider_a"} and len(train) == 120


def test_indicators_cover_both_sources_and_flag_the_unresolved_claim(pipeline):
    _, _, _, outputs, _ = pipeline
    ev = tables.read_frame(outputs["evidence"], EVIDENCE_INDICATORS)
    # source a lists the gold sentence second (kept); source b has it only for even claim ids
    assert ev[ev.evidence_source == "provider_a"].eligible.all()
    b = ev[ev.evidence_source == "provider_b"].set_index("claim_id")
    assert all(b.loc[c, "eligible"] == (int(c) % 2 == 0) for c in b.index)
    flags = tables.read_frame(outputs["unresolved"], UNRESOLVED_FLAGS)
    assert flags[flags.any_unresolved].claim_id.tolist() == ["10001"]
    ans = tables.read_frame(outputs["answers"], ANSWER_INDICATORS)
    assert sorted(set(ans.replicate)) == [1, 2] and len(ans) == 120


def test_rerunning_prediction_writes_a_byte_identical_answers_file(pipeline):
    tmp, ckpts, *_ = pipeline
    run_predict(ckpts, tmp / "inputs_dev.parquet", tmp / "answers_again.parquet", system="verifier", batch_size=7,
                precision=PREDICT_DEFAULTS["precision"])
    assert (tmp / "answers_again.parquet").read_bytes() == (tmp / "answers.parquet").read_bytes()


def test_checkpoint_order_must_match_checkpoint_metadata(pipeline):
    tmp, ckpts, *_ = pipeline
    with pytest.raises(ValueError, match="expected 1"):
        run_predict(list(reversed(ckpts)), tmp / "inputs_dev.parquet", tmp / "bad.parquet", system="verifier",
                    **PREDICT_DEFAULTS)
