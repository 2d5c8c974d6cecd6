"""convert-weights: a pickle-only tiny DeBERTa becomes a safetensors directory with the same
logits that the verifier's loader accepts without allow_pickle_weights; tied/view tensors are
kept; conversion.json records the source and both hashes."""
import hashlib
import json
import shutil

import pytest
import torch

from evidence_ledger.__main__ import main
from evidence_ledger.convert_weights import convert_weights
from evidence_ledger.demo.tiny_verifier import TinyVerifierSpec, build_tiny_verifier
from evidence_ledger.model_files import PickleWeightsRefused
from evidence_ledger.verifier.train import BaseModel, load_base
from support.pickle_weights import to_pickle_only


def logits_of(model, tokenizer):
    batch = tokenizer(["a claim about a river"], ["a city on the river"], return_tensors="pt")
    model.eval()
    with torch.inference_mode():
        return model(**batch).logits


def test_converted_tiny_deberta_gives_the_same_logits_and_loads_without_pickle(tmp_path):
    build_tiny_verifier(["a claim about a river", "a city on the river"], tmp_path / "base",
                        TinyVerifierSpec(vocab_size=300, hidden_size=32, intermediate_size=64))
    shutil.copytree(tmp_path / "base", tmp_path / "pickle")
    source = to_pickle_only(tmp_path / "pickle")
    with pytest.raises(PickleWeightsRefused, match="verifier.base_model.allow_pickle_weights"):
        load_base(BaseModel(local_dir=str(source)))
    tokenizer, original = load_base(BaseModel(local_dir=str(source), allow_pickle_weights=True))

    record = convert_weights(str(source), tmp_path / "converted")

    out = tmp_path / "converted"
    assert (out / "model.safetensors").is_file() and not (out / "pytorch_model.bin").exists()
    assert record == json.loads((out / "conversion.json").read_text())
    assert record["source"] == str(source) and record["revision"] is None
    assert record["source_weights"] == {
        "pytorch_model.bin": hashlib.sha256((source / "pytorch_model.bin").read_bytes()).hexdigest()}
    assert record["model.safetensors"] == hashlib.sha256((out / "model.safetensors").read_bytes()).hexdigest()
    assert {"config.json", "tokenizer_config.json"} <= set(record["copied_files"])
    _, converted = load_base(BaseModel(hub_id="microsoft/deberta-large-mnli", local_dir=str(out)))
    assert torch.allclose(logits_of(converted, tokenizer), logits_of(original, tokenizer))
    with pytest.raises(FileExistsError):
        convert_weights(str(source), out)
    with pytest.raises(ValueError, match="nothing to convert"):
        convert_weights(str(out), tmp_path / "again")


def test_tied_and_view_tensors_are_cloned_and_every_key_kept_by_the_command(tmp_path, capsys):
    from safetensors.torch import load_file

    source = tmp_path / "tied"
    source.mkdir()
    (source / "config.json").write_text("{}")
    (source / "bpe_encoder.bin").write_bytes(b"a tokenizer pickle that is not copied")
    shared = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    torch.save({"embed.weight": shared, "lm_head.weight": shared, "row": shared[1], "col": shared[:, 2]},
               source / "pytorch_model.bin")

    assert main(["convert-weights", str(source), "--out", str(tmp_path / "out")]) == 0

    written = load_file(str(tmp_path / "out" / "model.safetensors"))
    assert sorted(written) == ["col", "embed.weight", "lm_head.weight", "row"]
    assert torch.equal(written["lm_head.weight"], shared) and torch.equal(written["col"], shared[:, 2])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["config.json", "conversion.json",
                                                                     "model.safetensors"]
    assert json.loads(capsys.readouterr().out)["tensors"] == 4
