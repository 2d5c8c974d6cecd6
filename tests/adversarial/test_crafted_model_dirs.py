"""Probes: crafted model directories, through the one loading rule every model goes through
(``evidence_ledger.models.model_files.resolve_model``). Each refusal names the file or directory and,
for pickle weights, the config key that would allow them."""
import hashlib
import json

import pytest

from support.defaults import DEFAULTS, PREDICT_DEFAULTS, reranker_spec

from evidence_ledger.errors import InputError
from evidence_ledger.generation.backends.base import hash_model_dir
from evidence_ledger.models.model_files import PickleWeightsRefused, ShardMissing, resolve_model
from evidence_ledger.files.safe_files import PathOutside

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
    before = hash_model_dir(d)
    (d / "decoy.safetensors").write_bytes(b"changed")
    assert hash_model_dir(d) == before
    (d / "model.safetensors").write_bytes(b"other")
    assert hash_model_dir(d) != before


# --- files a model directory names or links to, outside it ----------------------------------------
# Every loader goes through model_files (model_directory / resolve_model / hash_model_dir), so each
# entry point below refuses, naming the entry, before anything is read from outside.


def verifier_base(d):
    from evidence_ledger.verifier.train import BaseModel, load_base
    return load_base(BaseModel(local_dir=str(d)))


def verifier_tokenizer(d):
    from evidence_ledger.verifier.train import BaseModel, load_tokenizer
    return load_tokenizer(BaseModel(local_dir=str(d)))


def verifier_checkpoint(d):
    from evidence_ledger.verifier.predict import predict_checkpoint
    return predict_checkpoint(d, None, checkpoint=1, system="probe", **PREDICT_DEFAULTS)


def reranker(d):
    from evidence_ledger.retrieval.reranker import reranker_files, reranker_identity

    spec = reranker_spec(local_dir=str(d))
    return reranker_identity(spec, reranker_files(spec))


def generation_spec(d):
    from evidence_ledger.generation.backends.base import model_spec_from_config
    return model_spec_from_config("qwen3", {"local_dir": str(d)})


def transformers_backend(d):
    from evidence_ledger.generation.backends.base import ModelSpec
    from evidence_ledger.generation.backends.transformers_backend import TransformersBackend
    return TransformersBackend(ModelSpec(name="qwen3", path=str(d)), batch_size=DEFAULTS["generation"]["batch_size"])


def budget_tokenizer(d):
    from evidence_ledger.evidence.budget import load_tokenizer
    return load_tokenizer(str(d))


def convert(d):
    from evidence_ledger.models.convert_weights import convert_weights
    return convert_weights(str(d), d.parent / "converted")


WEIGHT_LOADERS = [verifier_base, verifier_checkpoint, reranker, generation_spec, transformers_backend, convert]
LOADERS = WEIGHT_LOADERS + [verifier_tokenizer, budget_tokenizer]


def outside_file(tmp_path, name="outside.bin", data=b"not yours"):
    path = tmp_path / "elsewhere" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path


def index_dir(tmp_path, shard_name, weights="pytorch_model"):
    index = {"metadata": {}, "weight_map": {"embed.weight": f"{weights}-00001-of-00002.bin",
                                            "head.weight": shard_name}}
    return model_dir(tmp_path / "m", {**CONFIG, f"{weights}.bin.index.json": json.dumps(index).encode(),
                                      f"{weights}-00001-of-00002.bin": b"shard one", "metadata.json": b"{}"})


@pytest.mark.parametrize("load", WEIGHT_LOADERS, ids=lambda f: f.__name__)
def test_a_shard_entry_climbing_out_of_the_directory_is_refused_naming_the_index_and_entry(tmp_path, load):
    outside_file(tmp_path)
    d = index_dir(tmp_path, "../elsewhere/outside.bin")
    with pytest.raises(PathOutside, match=rf"{d}/pytorch_model\.bin\.index\.json: weight_map entry 'head\.weight' "
                                          rf"names '\.\./elsewhere/outside\.bin', which climbs out"):
        load(d)


@pytest.mark.parametrize("load", LOADERS, ids=lambda f: f.__name__)
def test_a_tokenizer_file_linked_out_of_the_directory_is_refused_naming_the_link(tmp_path, load):
    d = model_dir(tmp_path / "m", {"config.json": b'{"model_type": "x"}', "model.safetensors": b"w",
                                   "pytorch_model.bin": b"p", "metadata.json": b"{}"})
    (d / "tokenizer.json").symlink_to(outside_file(tmp_path, "tokenizer.json", b"{}"))
    with pytest.raises(PathOutside, match=rf"{d}/tokenizer\.json: a link to .*elsewhere/tokenizer\.json, outside "
                                          rf"the model directory"):
        load(d)


@pytest.mark.parametrize("name", ["/etc/passwd", "../elsewhere/vocab.txt", "sub/../../elsewhere/vocab.txt"])
def test_a_file_name_a_tokenizer_config_gives_outside_the_directory_is_refused_naming_the_key(tmp_path, name):
    outside_file(tmp_path, "vocab.txt")
    d = model_dir(tmp_path / "m", {**CONFIG, "model.safetensors": b"w",
                                   "tokenizer_config.json": json.dumps({"vocab_file": name}).encode()})
    with pytest.raises(PathOutside, match=rf"{d}/tokenizer_config\.json: key 'vocab_file' names"):
        resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)


def test_an_absolute_shard_path_and_a_linked_shard_are_refused(tmp_path):
    target = outside_file(tmp_path, "model-00002-of-00002.safetensors")
    d = index_dir(tmp_path, str(target), weights="model")
    (d / "model.safetensors.index.json").write_bytes((d / "model.bin.index.json").read_bytes())
    with pytest.raises(PathOutside, match="names the absolute path"):
        resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)
    index = json.loads((d / "model.safetensors.index.json").read_text())
    index["weight_map"]["head.weight"] = "model-00002-of-00002.safetensors"
    (d / "model.safetensors.index.json").write_text(json.dumps(index))
    (d / "model-00002-of-00002.safetensors").symlink_to(target)
    with pytest.raises(PathOutside, match=r"m/model-00002-of-00002\.safetensors: a link to .*elsewhere"):
        resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)


@pytest.mark.parametrize("index", [b"{not json", b"[]", b'{"weight_map": {}}', b'{"weight_map": {"a": 3}}'])
def test_a_malformed_weight_index_is_refused_naming_it(tmp_path, index):
    d = model_dir(tmp_path / "m", {**CONFIG, "model.safetensors.index.json": index})
    with pytest.raises(InputError, match=rf"{d}/model\.safetensors\.index\.json"):
        resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)


def test_a_shard_the_index_names_but_the_directory_lacks_is_refused_naming_the_entry(tmp_path):
    d = index_dir(tmp_path, "pytorch_model-00002-of-00002.bin")
    with pytest.raises(ShardMissing, match=r"weight_map entry 'head\.weight' names 'pytorch_model-00002-of-00002\.bin',"
                                           r" which is not a file in"):
        resolve_model(str(d), allow_pickle_weights=True, allow_key=KEY)


def test_a_hub_cache_snapshot_whose_files_link_into_its_blobs_loads(tmp_path, monkeypatch):
    import huggingface_hub.constants

    sha = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--org--tiny"
    model_dir(repo / "blobs", {"b1": b'{"model_type": "x"}', "b2": b"weights"})
    snapshot = repo / "snapshots" / sha
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").symlink_to("../../blobs/b1")
    (snapshot / "model.safetensors").symlink_to("../../blobs/b2")
    model_dir(repo / "refs", {"main": sha.encode()})
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    files = resolve_model("org/tiny", sha, allow_pickle_weights=False, allow_key=KEY)
    assert files.weights_sha256() == hashlib.sha256(b"weights").hexdigest()
    (snapshot / "tokenizer.json").symlink_to(outside_file(tmp_path, "tokenizer.json", b"{}"))
    with pytest.raises(PathOutside, match="tokenizer.json: a link to"):
        resolve_model("org/tiny", sha, allow_pickle_weights=False, allow_key=KEY)
