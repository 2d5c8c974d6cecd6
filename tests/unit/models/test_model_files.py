"""model_files: the weight files a load reads (transformers' precedence), the pickle refusal that
names its config key, identities over exactly the loaded files, offline Hub resolution, and
tokenizer configs that do not depend on HF_HUB_OFFLINE."""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import huggingface_hub.constants
import pytest

from evidence_ledger.generation.backends.base import hash_model_dir
from evidence_ledger.models.model_files import (ModelNotCached, PickleWeightsRefused, identity_files, loaded_weight_files,
                                         model_dir_problems, resolve_model)

REPO = Path(__file__).resolve().parents[3]
KEY = "verifier.base_model.allow_pickle_weights"


def write_files(directory: Path, files: dict) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(data)
    return directory


def former_identity(path: Path) -> str:
    """The generation identity as hash_model_dir computed it before model_files (every file with a
    weight, config or tokenizer suffix): safetensors-only directories must keep this value."""
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()
                    and p.suffix in (".safetensors", ".json", ".jinja", ".txt", ".model", ".bin")):
        h.update(str(f.relative_to(path)).encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()


CONFIG = {"config.json": b'{"model_type": "x"}', "tokenizer.json": b"{}", "tokenizer_config.json": b"{}",
          "chat_template.jinja": b"{{ messages }}", "README.md": b"not hashed"}


def test_a_decoy_safetensors_beside_pickle_weights_is_refused_with_the_key_named(tmp_path):
    d = write_files(tmp_path / "m", {**CONFIG, "pytorch_model.bin": b"pickle", "foo.safetensors": b"decoy"})
    assert loaded_weight_files(d) == ("pickle", (d / "pytorch_model.bin",))
    with pytest.raises(PickleWeightsRefused, match=r"pytorch_model\.bin.*verifier\.base_model\.allow_pickle_weights: true"):
        resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)


def test_allowed_pickle_weights_identity_hashes_the_loaded_file_not_the_decoy(tmp_path):
    d = write_files(tmp_path / "m", {**CONFIG, "pytorch_model.bin": b"pickle", "foo.safetensors": b"decoy"})
    files = resolve_model(str(d), allow_pickle_weights=True, allow_key=KEY)
    assert files.format == "pickle" and files.weights == (d / "pytorch_model.bin",)
    assert d / "foo.safetensors" not in identity_files(files.directory, files.weights)
    assert files.weights_sha256() == hashlib.sha256(b"pickle").hexdigest()
    before = hash_model_dir(d)
    (d / "foo.safetensors").write_bytes(b"another decoy")
    assert hash_model_dir(d) == before
    (d / "pytorch_model.bin").write_bytes(b"other pickle")
    assert hash_model_dir(d) != before


def test_model_safetensors_wins_and_the_unloaded_pickle_stays_out_of_the_identity(tmp_path):
    d = write_files(tmp_path / "m", {**CONFIG, "model.safetensors": b"safe", "pytorch_model.bin": b"pickle",
                                     "training_args.bin": b"pickle too"})
    files = resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)
    assert files.format == "safetensors" and files.weights == (d / "model.safetensors",)
    assert [p.name for p in identity_files(files.directory, files.weights)] == [
        "chat_template.jinja", "config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]


def test_a_sharded_index_loads_exactly_the_shards_it_names(tmp_path):
    index = {"weight_map": {"a": "model-00002-of-00002.safetensors", "b": "model-00001-of-00002.safetensors",
                            "c": "model-00001-of-00002.safetensors"}}
    d = write_files(tmp_path / "m", {**CONFIG, "model.safetensors.index.json": json.dumps(index).encode(),
                                     "model-00001-of-00002.safetensors": b"one", "model-00002-of-00002.safetensors": b"two",
                                     "stray.safetensors": b"stray", "pytorch_model.bin.index.json": b"{}"})
    files = resolve_model(str(d), allow_pickle_weights=False, allow_key=KEY)
    assert [w.name for w in files.weights] == ["model.safetensors.index.json", "model-00001-of-00002.safetensors",
                                               "model-00002-of-00002.safetensors"]
    names = [p.name for p in identity_files(files.directory, files.weights)]
    assert "stray.safetensors" not in names and "pytorch_model.bin.index.json" not in names
    assert files.weights_sha256() == hashlib.sha256(b"onetwo").hexdigest()


def test_no_weights_at_all_is_an_error_naming_the_files_looked_for(tmp_path):
    d = write_files(tmp_path / "m", {**CONFIG, "weights.safetensors": b"not a transformers name"})
    with pytest.raises(FileNotFoundError, match="model.safetensors"):
        resolve_model(str(d), allow_pickle_weights=True, allow_key=KEY)


def test_identity_of_a_safetensors_only_directory_is_unchanged(tmp_path):
    from evidence_ledger.demo.tiny_verifier import TinyVerifierSpec, build_tiny_verifier

    d = Path(build_tiny_verifier(["a claim about a river", "a city on the river"], tmp_path / "base",
                                 TinyVerifierSpec(vocab_size=300, hidden_size=32, intermediate_size=64)))
    write_files(d, {"extra/notes.txt": b"nested files count as before"})
    assert hash_model_dir(d) == former_identity(d)
    assert hash_model_dir(d) == former_identity(d)


def test_a_hub_id_resolves_from_the_local_cache_only(tmp_path, monkeypatch):
    sha = "7296194b9009373def4f7c5dad292651e4b5cf4e"
    repo = tmp_path / "hub" / "models--org--tiny"
    snapshot = write_files(repo / "snapshots" / sha, {**CONFIG, "pytorch_model.bin": b"pickle"})
    write_files(repo / "refs", {"main": sha.encode()})
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(PickleWeightsRefused, match=r"org/tiny@7296194.*models\.tiny\.allow_pickle_weights.*"
                                                   r"convert-weights org/tiny --revision 7296194"):
        resolve_model("org/tiny", sha, allow_pickle_weights=False, allow_key="models.tiny.allow_pickle_weights")
    files = resolve_model("org/tiny", sha, allow_pickle_weights=True, allow_key="models.tiny.allow_pickle_weights")
    assert files.directory.resolve() == snapshot.resolve() and files.source == f"org/tiny@{sha}"
    with pytest.raises(ModelNotCached, match="not in the local Hugging Face cache"):
        resolve_model("org/absent", sha, allow_pickle_weights=True, allow_key=KEY)


SAVE_TOKENIZER = """
import sys
from evidence_ledger.models.model_files import save_tokenizer
from evidence_ledger.verifier.train import BaseModel, load_tokenizer
save_tokenizer(load_tokenizer(BaseModel(local_dir=sys.argv[1])), sys.argv[2])
"""


def test_saved_tokenizer_config_bytes_do_not_depend_on_hf_hub_offline(tmp_path):
    from evidence_ledger.demo.tiny_verifier import TinyVerifierSpec, build_tiny_verifier

    build_tiny_verifier(["a claim about a river", "a city on the river"], tmp_path / "base",
                        TinyVerifierSpec(vocab_size=300, hidden_size=32, intermediate_size=64))
    written = {}
    for mode in ("offline", "unset"):
        env = {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"}
        if mode == "offline":
            env["HF_HUB_OFFLINE"] = "1"
        env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
        subprocess.run([sys.executable, "-c", SAVE_TOKENIZER, str(tmp_path / "base"), str(tmp_path / mode)],
                       env=env, check=True, cwd=tmp_path)
        written[mode] = (tmp_path / mode / "tokenizer_config.json").read_bytes()
    assert written["offline"] == written["unset"]
    assert "local_files_only" not in json.loads(written["offline"])


def test_model_dir_problems_names_an_index_entry_leading_out(tmp_path):
    """The preflight's completeness check applies the model-directory rule: a shard entry outside
    the directory is the problem it reports, not a malformed index."""
    import json as _json

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "tokenizer.json").write_text("{}")
    (tmp_path / "outside.safetensors").write_bytes(b"x")
    (model / "model.safetensors.index.json").write_text(
        _json.dumps({"weight_map": {"w": "../outside.safetensors"}}))
    problems = model_dir_problems(model)
    assert len(problems) == 1 and "../outside.safetensors" in problems[0]


def test_model_dir_problems_names_a_link_leading_out(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (tmp_path / "secret.json").write_text("{}")
    (model / "config.json").symlink_to(tmp_path / "secret.json")
    problems = model_dir_problems(model)
    assert len(problems) == 1 and "config.json" in problems[0]


def test_a_directory_with_config_and_tokenizer_but_no_weights_is_weightless(tmp_path):
    """config.json + a tokenizer vocabulary and no weight file or index: a download of the
    tokenizer files alone; any weight file, an index, or a missing tokenizer is not."""
    from evidence_ledger.models.model_files import weights_absent

    (tmp_path / "config.json").write_text("{}")
    assert not weights_absent(tmp_path)  # no tokenizer vocabulary
    (tmp_path / "tokenizer.json").write_text("{}")
    assert weights_absent(tmp_path)
    (tmp_path / "model.safetensors.index.json").write_text("{}")
    assert not weights_absent(tmp_path)
