"""Probes: crafted model directories, through the one loading rule every model goes through
(``evidence_ledger.model_files.resolve_model``). Each refusal names the file or directory and,
for pickle weights, the config key that would allow them."""
import hashlib

import pytest

from evidence_ledger.model_files import PickleWeightsRefused, resolve_model

KEY = "models.qwen3.allow_pickle_weights"
CONFIG = {"config.json": b'{"model_type": "x"}', "tokenizer.json": b"{}"}


def model_dir(path, files: dict):
    path.mkdir(parents=True)
    for name, data in files.items():
        (path / name).write_bytes(data)
    return path


def test_decoy_safetensors_beside_pickle_weights_is_refused_naming_the_loaded_file_and_key(tmp_path):
    d = model_dir(tmp_path / "m", {**CONFIG, "pytorch_model.bin": b"pickle", "decoy.safetensors": b"x"})
    with pytest.raises(PickleWeightsRefused, match=rf"pytorch_model\.bin.*{KEY}: true"):
        resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)


def test_pickle_only_directory_is_refused_and_allowed_only_by_the_key(tmp_path):
    d = model_dir(tmp_path / "m", {**CONFIG, "pytorch_model.bin": b"pickle"})
    with pytest.raises(PickleWeightsRefused, match=rf"{KEY}: true"):
        resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)
    files = resolve_model(str(d), allow_pickle_weights=True, allow_key=KEY)
    assert files.weights_sha256() == hashlib.sha256(b"pickle").hexdigest()


def test_weights_without_config_are_refused_naming_the_directory(tmp_path):
    d = model_dir(tmp_path / "m", {"model.safetensors": b"weights", "tokenizer.json": b"{}"})
    with pytest.raises(FileNotFoundError, match=rf"{d} has weights \(model\.safetensors\) but no config\.json"):
        resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)


def test_directory_without_weights_is_refused_naming_it(tmp_path):
    d = model_dir(tmp_path / "m", CONFIG)
    with pytest.raises(FileNotFoundError, match=rf"model directory {d} holds no weights"):
        resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)


def test_identity_hashes_the_loaded_safetensors_not_a_decoy(tmp_path):
    d = model_dir(tmp_path / "m", {**CONFIG, "model.safetensors": b"real", "decoy.safetensors": b"x"})
    before = resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY).identity_sha256()
    (d / "decoy.safetensors").write_bytes(b"changed")
    assert resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY).identity_sha256() == before
    (d / "model.safetensors").write_bytes(b"other")
    assert resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY).identity_sha256() != before
