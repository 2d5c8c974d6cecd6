"""The preflight's model checks: a model the run loads that is missing, incomplete, pickle-only or
asks for its own code is refused in one line naming its key and the command that fixes it.

Checks run in-process on a run built as the command line builds it (``--configfile`` files and
``--config`` entries) over a data tree in the paper's layout (``rehearsal-data``); the workflow's
own start and the ``check`` command are tested in tests/workflow/test_preflight.py.
"""
from __future__ import annotations

import json
import shutil

import pytest

from support.hub_cache import snapshot_dir, stand_in_model_dir
from support.preflight_runs import PAPER, VERIFIER_DIR, checks, failures, only_failure, paper_ready


def test_a_hub_model_not_in_the_cache_or_at_a_made_up_revision_is_refused(data, hub):
    paper_ready(data, hub)
    shutil.rmtree(snapshot_dir(hub, "meta-llama/Llama-3.1-8B-Instruct", "0e9e39f249a16976918f6564b8830bc894c89659"))
    made_up = "1234567890abcdef1234567890abcdef12345678"
    failed = failures(checks(f"data_root={data}", f"models={{qwen3: {{revision: {made_up}}}}}", files=(PAPER,)))
    assert len(failed) == 2, failed
    assert failed[0].startswith("models.qwen3 (--config): Qwen/Qwen3-8B@" + made_up + " is not in the local Hugging "
                                "Face cache")
    assert failed[1].startswith("models.llama31 (config/paper.yaml:")


def _drop(name):
    def change(directory):
        (directory / name).unlink()
    return change


def _truncate_weights(directory):
    path = directory / "model.safetensors"
    path.write_bytes(path.read_bytes()[:-4])


def _shard_index_with_a_missing_shard(directory):
    (directory / "model.safetensors").rename(directory / "model-00001-of-00002.safetensors")
    (directory / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}))


def _pickle_weights(directory):
    (directory / "model.safetensors").unlink()
    (directory / "pytorch_model.bin").write_bytes(b"pickle")


def _remote_code(directory):
    cfg = json.loads((directory / "config.json").read_text())
    cfg["auto_map"] = {"AutoModel": "modeling_custom.CustomModel"}
    (directory / "config.json").write_text(json.dumps(cfg))


@pytest.mark.parametrize("change, message", [
    (_drop("config.json"), "no config.json"),
    (_drop("tokenizer.json"), "no tokenizer vocabulary"),
    (_truncate_weights, "model.safetensors: truncated"),
    (_shard_index_with_a_missing_shard, "weight_map entry 'b' names 'model-00002-of-00002.safetensors', "
                                        "which is not a file in"),
    (_pickle_weights, "its weights are pickle (pytorch_model.bin; no model.safetensors or model.safetensors.index."
                      "json), which load only with verifier.base_model.allow_pickle_weights: true"),
])
def test_an_incomplete_converted_verifier_is_refused_with_the_convert_command(data, hub, change, message):
    paper_ready(data, hub)
    change(data / VERIFIER_DIR)
    text = only_failure(checks(f"data_root={data}", files=(PAPER,)))
    assert text.startswith(f"verifier.base_model.local_dir -> {(data / VERIFIER_DIR).resolve()} (config/paper.yaml:")
    assert message in text and "convert it again: python -m evidence_ledger convert-weights" in text, text


def test_a_pickle_only_hub_model_is_refused_naming_the_conversion(data, hub):
    paper_ready(data, hub)
    revision = "7296194b9009373def4f7c5dad292651e4b5cf4e"
    _pickle_weights(stand_in_model_dir(snapshot_dir(hub, "microsoft/deberta-large-mnli", revision), "deberta"))
    text = only_failure(checks(f"data_root={data}", "verifier={base_model: {local_dir: null}}", files=(PAPER,)))
    assert text.startswith(f"verifier.base_model: microsoft/deberta-large-mnli@{revision} (config/paper.yaml:")
    assert "its weights are pickle" in text and text.endswith(
        f"or convert them once: python -m evidence_ledger convert-weights microsoft/deberta-large-mnli --revision "
        f"{revision} --out DIR, and set verifier.base_model.local_dir to DIR")


def test_a_model_asking_for_its_own_code_is_refused_unless_trusted(data, hub):
    paper_ready(data, hub)
    _remote_code(snapshot_dir(hub, "Qwen/Qwen3-8B", "b968826d9c46dd6066d109eabc6255188de91218"))
    text = only_failure(checks(f"data_root={data}", files=(PAPER,)))
    assert text.startswith("models.qwen3: Qwen/Qwen3-8B@b968826") and \
        "config.json has an auto_map (the model's own code), which loads only with models.qwen3.trust_remote_code: " \
        "true" in text
    assert not failures(checks(f"data_root={data}", "models={qwen3: {trust_remote_code: true}}", files=(PAPER,)))


def test_a_local_model_directory_that_is_not_there_is_refused(tree, tmp_path):
    text = only_failure(checks(f"data_root={tree}", f"models={{llama31: {{build: null, local_dir: {tmp_path}/l31}}}}"))
    assert text.startswith(f"models.llama31.local_dir -> {tmp_path}/l31 (--config): does not exist")
