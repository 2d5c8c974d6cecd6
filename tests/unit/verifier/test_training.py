"""Verifier fine-tuning and prediction on demo-like data with the locally built tiny model."""
import json
import random

import pyarrow as pa
import pytest

from support.defaults import PREDICT_DEFAULTS, TRAINING_DEFAULTS, serialisation_limits

from evidence_ledger import tables
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.ingest import CLAIMS, UNITS
from evidence_ledger.tables.verifier import EXAMPLES_SEEN
from evidence_ledger.verifier.labels import head_index_by_label, label_set_indices
from evidence_ledger.verifier.predict import predict_checkpoint
from evidence_ledger.verifier.serialise import build_verifier_inputs
from evidence_ledger.demo.tiny_verifier import TinyVerifierSpec, build_tiny_verifier
from evidence_ledger.verifier.train import BaseModel, TrainingSettings, load_tokenizer, train_checkpoint

from support.verifier_world import demo_like_world

@pytest.fixture(scope="module")
def world(tmp_path_factory):
    rng = random.Random(7)
    train_c, train_u, train_e = demo_like_world(400, 0, rng)
    dev_c, dev_u, dev_e = demo_like_world(200, 10_000, rng)
    base_dir = tmp_path_factory.mktemp("verifier_base")
    build_tiny_verifier([c["claim"] for c in train_c] + [u["text"] for u in train_u], base_dir,
                        TinyVerifierSpec(vocab_size=500, hidden_size=128, intermediate_size=256))
    base = BaseModel(str(base_dir))
    tokenizer = load_tokenizer(base)
    units = UNITS.from_rows(train_u + dev_u)
    evidence = {"provider_a": EVIDENCE.from_rows(train_e + dev_e)}
    train_in, _ = build_verifier_inputs(CLAIMS.from_rows(train_c), evidence, units, tokenizer,
                                        serialisation_limits(), "train")
    dev_in, _ = build_verifier_inputs(CLAIMS.from_rows(dev_c), evidence, units, tokenizer,
                                      serialisation_limits(), "dev")
    return {"base": base, "train": train_in, "dev": dev_in, "tmp": tmp_path_factory,
            "gold": {c["claim_id"]: c["label"] for c in dev_c}}


def settings(seed, updates, lr=5e-4, examples=None):
    return TrainingSettings(**TRAINING_DEFAULTS, seed=seed, final_update=updates, batch_size=16, grad_accumulation=1, learning_rate=lr,
                            warmup_ratio=0.1, label_set=("SUPPORTS", "REFUTES"), examples=examples)


def accuracy(rows, gold):
    return sum(r["predicted_label"] == gold[r["claim_id"]] for r in rows) / len(rows)


def test_training_on_demo_like_data_beats_chance_on_held_out_claims(world):
    out = world["tmp"].mktemp("ckpt_learn")
    train_checkpoint(world["train"], world["base"], settings(1, 300, lr=1e-3), out, checkpoint=1)
    rows = predict_checkpoint(out, world["dev"], checkpoint=1, system="tiny", **PREDICT_DEFAULTS)
    # 200 held-out claims, two balanced classes: chance is 0.5; 0.7 is > 5 sd above it
    assert accuracy(rows, world["gold"]) >= 0.7


def test_identical_seed_gives_identical_checkpoint_predictions(world):
    runs = []
    for name in ("a", "b"):
        out = world["tmp"].mktemp(f"ckpt_seed_{name}")
        train_checkpoint(world["train"], world["base"], settings(3, 20, examples=64), out, checkpoint=1)
        runs.append((predict_checkpoint(out, world["dev"], checkpoint=1, system="tiny", **PREDICT_DEFAULTS),
                     (out / "model.safetensors").read_bytes(),
                     tables.read_table(out / "examples_seen.parquet", EXAMPLES_SEEN).to_pylist()))
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] == runs[1][1]
    assert runs[0][2] == runs[1][2]


def test_other_seed_sees_other_examples_in_another_order(world):
    seen = []
    for seed in (3, 4):
        out = world["tmp"].mktemp(f"ckpt_order_{seed}")
        train_checkpoint(world["train"], world["base"], settings(seed, 4, examples=64), out, checkpoint=1)
        seen.append([r["claim_id"] for r in tables.read_table(out / "examples_seen.parquet", EXAMPLES_SEEN).to_pylist()])
    assert seen[0] != seen[1]


def test_checkpoint_directory_records_weights_log_examples_and_metadata(world):
    out = world["tmp"].mktemp("ckpt_files")
    meta = train_checkpoint(world["train"], world["base"], settings(5, 6, examples=40), out, checkpoint=2)
    assert (out / "model.safetensors").exists()
    log_lines = (out / "training_log.jsonl").read_text().splitlines()
    assert [json.loads(l)["update"] for l in log_lines] == list(range(1, 7))
    seen = tables.read_table(out / "examples_seen.parquet", EXAMPLES_SEEN).to_pylist()
    assert len(seen) == 6 * 16
    # 40 distinct examples: the first pass uses each once before any repeats
    assert len({r["claim_id"] for r in seen[:40]}) == 40
    assert len({r["claim_id"] for r in seen}) == 40
    on_disk = json.loads((out / "metadata.json").read_text())
    assert on_disk == meta
    assert meta["seed"] == 5 and meta["checkpoint"] == 2 and meta["final_update"] == 6
    assert meta["distinct_examples"] == 40 and meta["example_uses"] == 96
    assert meta["parameters_updated"] == meta["parameters_total"]
    assert meta["base_model"]["revision"] is None
    assert {"torch", "transformers", "tokenizers", "python"} <= set(meta["libraries"])


def test_two_label_checkpoint_never_predicts_nei_and_its_probabilities_sum_to_one(world):
    out = world["tmp"].mktemp("ckpt_labels")
    train_checkpoint(world["train"], world["base"], settings(6, 3, examples=32), out, checkpoint=1)
    rows = predict_checkpoint(out, world["dev"], checkpoint=1, system="tiny", **PREDICT_DEFAULTS)
    assert {r["predicted_label"] for r in rows} <= {"SUPPORTS", "REFUTES"}
    assert all(r["p_nei"] == 0.0 for r in rows)
    assert all(abs(r["p_supports"] + r["p_refutes"] - 1.0) < 1e-9 for r in rows)


def test_more_examples_than_the_pool_is_refused(world):
    with pytest.raises(ValueError, match="only 400 training inputs"):
        train_checkpoint(world["train"], world["base"], settings(1, 1, examples=401),
                         world["tmp"].mktemp("ckpt_too_many"), checkpoint=1)


def test_mnli_head_maps_entailment_contradiction_neutral_to_feverous_labels():
    id2label = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}
    assert head_index_by_label(id2label) == {"REFUTES": 0, "NOT ENOUGH INFO": 1, "SUPPORTS": 2}
    assert label_set_indices(id2label, ["SUPPORTS", "REFUTES"]) == [2, 0]
    with pytest.raises(ValueError, match="LABEL_0"):
        head_index_by_label({0: "LABEL_0", 1: "NEUTRAL"})


def test_training_inputs_without_any_source_row_are_refused(world):
    train = world["train"]
    orphan = train.set_column(train.schema.get_field_index("in_source"), "in_source",
                              pa.array([False] * train.num_rows))
    with pytest.raises(ValueError, match="must cover the training claims"):
        train_checkpoint(orphan, world["base"], settings(1, 1), world["tmp"].mktemp("ckpt_orphan"), checkpoint=1)


def test_summary_tsv_reports_inputs_training_and_answer_shares(world):
    from evidence_ledger.tables.verifier import VERIFIER_ANSWERS, VERIFIER_INPUTS
    from evidence_ledger.verifier.summary import write_verifier_summary

    tmp = world["tmp"].mktemp("summary")
    ckpt = tmp / "ckpt1"
    train_checkpoint(world["train"], world["base"], settings(2, 2, examples=32), ckpt, checkpoint=1)
    answers = predict_checkpoint(ckpt, world["dev"], checkpoint=1, system="tiny", **PREDICT_DEFAULTS)
    tables.write_table(VERIFIER_ANSWERS.from_rows(answers), tmp / "answers.parquet", VERIFIER_ANSWERS)
    tables.write_table(world["train"], tmp / "inputs_train.parquet", VERIFIER_INPUTS)
    tables.write_table(world["dev"], tmp / "inputs_dev.parquet", VERIFIER_INPUTS)
    write_verifier_summary([tmp / "inputs_train.parquet", tmp / "inputs_dev.parquet"], [ckpt], tmp / "answers.parquet",
                           tmp / "summary.tsv")
    rows = [line.split("\t") for line in (tmp / "summary.tsv").read_text().splitlines()]
    assert rows[0] == ["part", "split", "source", "checkpoint", "metric", "value"]
    values = {(r[0], r[1], r[3], r[4]): r[5] for r in rows[1:]}
    assert values[("inputs", "train", "", "inputs")] == "400"
    assert values[("inputs", "dev", "", "sentinel_inputs")] == "0"
    assert values[("inputs", "dev", "", "mean_units_used")] == "2"
    assert values[("training", "train", "1", "distinct_examples")] == "32"
    shares = [float(v) for (part, _, _, metric), v in values.items() if part == "answers"]
    assert abs(sum(shares) - 1.0) < 1e-3


def test_demo_tokenizer_vocabulary_is_the_same_in_every_process():
    # The tokenizers WordPiece trainer breaks frequency ties differently per process; the
    # demo vocabulary is counted by us, so two interpreters with different hash seeds agree.
    import os
    import subprocess
    import sys

    code = ("from evidence_ledger.demo.tiny_verifier import train_wordpiece_tokenizer as t;"
            "print(sorted(t(['a river city %d' % i for i in range(50)] + ['beta gamma'] * 3, 80).get_vocab().items()))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in ("1", "2", "3")}
    assert len(outs) == 1
