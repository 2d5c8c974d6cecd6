"""Generation backends load safetensors only unless the model's config opts in
(``models.<name>.allow_pickle_weights``), from the directory ``model_files`` resolves."""
import sys
import types

import pytest

from evidence_ledger.generation.backends import load_backend, model_spec_from_config
from evidence_ledger.generation.backends.vllm_backend import VllmBackend, vllm_load_format
from evidence_ledger.models.model_files import resolve_model
from evidence_ledger.models.model_files import PickleWeightsRefused
from evidence_ledger.demo.tiny_models import TrainingExample, build_demo_model
from support.defaults import DEFAULTS, vllm_options
from support.pickle_weights import to_pickle_only

MAPPINGS = {"primary": {"A": "support", "B": "refute", "C": "nei"}}
CFG = {"dtype": "float32", "chat_template_kwargs": {"enable_thinking": False}}


@pytest.fixture(scope="module")
def pickle_only_model(tmp_path_factory):
    out = tmp_path_factory.mktemp("models") / "qwen3"
    examples = [TrainingExample("fever", f"claim {i}", f"evidence {i}", "SUPPORTS") for i in range(12)]
    build_demo_model(out, "qwen3", examples, [e.claim + " " + e.evidence for e in examples], MAPPINGS,
                     {"enable_thinking": False}, steps=2, vocab_size=300)
    return to_pickle_only(out)


def test_transformers_backend_refuses_pickle_weights_unless_opted_in(pickle_only_model):
    with pytest.raises(PickleWeightsRefused, match=r"models\.qwen3\.allow_pickle_weights: true"):
        load_backend("transformers", model_spec_from_config("qwen3", CFG, str(pickle_only_model)),
                     batch_size=DEFAULTS["generation"]["batch_size"])
    spec = model_spec_from_config("qwen3", dict(CFG, allow_pickle_weights=True), str(pickle_only_model))
    backend = load_backend("transformers", spec, batch_size=DEFAULTS["generation"]["batch_size"])
    assert backend.model.num_parameters() > 0
    # the opt-in is not part of the model identity (the same weights give the same answers)
    assert spec.identity() == model_spec_from_config("qwen3", CFG, str(pickle_only_model)).identity()


def test_vllm_backend_refuses_pickle_unless_opted_in_and_passes_the_resolved_directory(pickle_only_model, monkeypatch):
    seen = []

    class FakeLLM:
        def __init__(self, **kwargs):
            seen.append(kwargs)

        def get_tokenizer(self):
            return None

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=FakeLLM))
    with pytest.raises(PickleWeightsRefused, match=r"models\.qwen3\.allow_pickle_weights"):
        VllmBackend(model_spec_from_config("qwen3", CFG, str(pickle_only_model)), **vllm_options())
    VllmBackend(model_spec_from_config("qwen3", dict(CFG, allow_pickle_weights=True), str(pickle_only_model)),
                **vllm_options())
    assert [(kw["model"], kw["load_format"]) for kw in seen] == [(str(pickle_only_model), "auto")]
    assert "revision" not in seen[0]


def test_vllm_refuses_a_directory_where_its_glob_would_load_other_tensor_files(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    files = resolve_model(str(tmp_path), allow_pickle_weights=False, allow_key="models.m.allow_pickle_weights")
    assert vllm_load_format(files) == "safetensors"
    (tmp_path / "foo.safetensors").write_bytes(b"decoy")
    with pytest.raises(ValueError, match=r"vLLM would also load \['foo.safetensors'\]"):
        vllm_load_format(resolve_model(str(tmp_path), allow_pickle_weights=False, allow_key="models.m.allow_pickle_weights"))


def test_the_factory_names_each_backend_and_imports_none_until_built():
    import ast
    import importlib

    from evidence_ledger.generation.backends import base

    tree = ast.parse(open(base.__file__, encoding="utf-8").read())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"transformers_backend", "vllm_backend"}
    for name, target in base.BACKENDS.items():
        module, _, cls = target.partition(":")
        assert issubclass(getattr(importlib.import_module(module, base.__package__), cls), base.Backend), name
    with pytest.raises(ValueError, match="unknown generation backend"):
        load_backend("nope", None)
