"""The verifier base model loads safetensors only unless the config opts in (the refusal names
the key), and every loader's opt-in key is in the config schema."""
from pathlib import Path

import pytest
import yaml

from evidence_ledger.demo.tiny_verifier import TinyVerifierSpec, build_tiny_verifier
from evidence_ledger.models.model_files import PickleWeightsRefused
from evidence_ledger.verifier.train import BaseModel, load_base
from support.pickle_weights import to_pickle_only

SCHEMA = Path(__file__).resolve().parents[3] / "workflow" / "schemas" / "config.schema.yaml"


def test_verifier_base_refuses_pickle_weights_unless_opted_in(tmp_path):
    build_tiny_verifier(["a claim about a river", "a city on the river"], tmp_path / "base",
                        TinyVerifierSpec(vocab_size=300, hidden_size=32, intermediate_size=64))
    directory = str(to_pickle_only(tmp_path / "base"))
    with pytest.raises(PickleWeightsRefused, match=r"verifier\.base_model\.allow_pickle_weights: true"):
        load_base(BaseModel(directory))
    _, model = load_base(BaseModel(directory, allow_pickle_weights=True))
    assert model.num_parameters() > 0


def test_every_loader_has_the_allow_pickle_weights_key_in_the_schema():
    props = yaml.safe_load(SCHEMA.read_text())["properties"]
    assert "allow_pickle_weights" in props["models"]["additionalProperties"]["properties"]
    assert "allow_pickle_weights" in props["retrieval"]["properties"]["reranker"]["properties"]
    assert "allow_pickle_weights" in props["verifier"]["properties"]["base_model"]["properties"]
