"""GPU fit (src/evidence_ledger/models/gpu_fit.py): the published model facts, the table for
config/paper.yaml, and the refusals (more GPUs than granted; weights + KV over the device)."""
import copy
import json
import struct

import pytest
import yaml

from support.paths import REPO_ROOT

from evidence_ledger.config.layers import layered_config
from evidence_ledger.models.gpu_fit import (
    BYTES_PER_PARAM, PUBLISHED, QUANTIZATIONS, decoder_params, format_gpu_fit, gpu_fit_errors, gpu_fit_rows,
    kv_bytes_per_token, model_facts,
)

PAPER = layered_config(REPO_ROOT, [REPO_ROOT / "config" / "paper.yaml"])
SCHEMA = yaml.safe_load((REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())

# config.json of each decoder on its Hub page (the fields the parameter count needs).
HUB_CONFIGS = {
    "Qwen/Qwen3-8B": {"model_type": "qwen3", "hidden_size": 4096, "intermediate_size": 12288, "vocab_size": 151936,
                      "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                      "num_hidden_layers": 36, "tie_word_embeddings": False, "max_position_embeddings": 40960},
    "meta-llama/Llama-3.1-8B-Instruct": {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
                                         "vocab_size": 128256, "num_attention_heads": 32, "num_key_value_heads": 8,
                                         "num_hidden_layers": 32, "max_position_embeddings": 131072},
    "meta-llama/Meta-Llama-3-70B-Instruct": {"model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672,
                                             "vocab_size": 128256, "num_attention_heads": 64,
                                             "num_key_value_heads": 8, "num_hidden_layers": 80,
                                             "max_position_embeddings": 8192},
}


def judge(config: dict, **settings) -> dict:
    """A copy of ``config`` with the judge's ``models.llama3_70b`` entry updated."""
    config = copy.deepcopy(config)
    config["models"]["llama3_70b"].update(settings)
    return config


@pytest.mark.parametrize("hub_id", sorted(HUB_CONFIGS))
def test_published_facts_agree_with_the_hub_config(hub_id):
    cfg, facts = HUB_CONFIGS[hub_id], PUBLISHED[hub_id]
    assert abs(decoder_params(cfg) - facts.params) / facts.params < 0.005
    assert (facts.layers, facts.kv_heads, facts.head_dim, facts.max_positions) == (
        cfg["num_hidden_layers"], cfg["num_key_value_heads"], 128, cfg["max_position_embeddings"])


def test_kv_cache_of_llama3_70b_in_bf16():
    # 2 (K, V) x 80 layers x 8 KV heads x 128 x 2 bytes
    assert kv_bytes_per_token(PUBLISHED["meta-llama/Meta-Llama-3-70B-Instruct"], "bfloat16") == 327_680


def test_quantizations_are_the_schema_enum():
    enum = SCHEMA["properties"]["models"]["additionalProperties"]["properties"]["quantization"]["enum"]
    assert [q for q in enum if q is not None] == list(QUANTIZATIONS)
    assert set(QUANTIZATIONS) <= set(BYTES_PER_PARAM)


def test_paper_config_table(tmp_path):
    """Every GPU job of config/paper.yaml fits one H200 (141 GB): the 8B models in bf16 and the
    70B judge in fp8 (70.6 GB of weights, 126.9 - 70.6 - 4 = 52.3 GB of KV room)."""
    rows = gpu_fit_rows(PAPER, tmp_path)
    assert [(r["rule"], r["key"]) for r in rows] == [
        ("generate", "models.qwen3"), ("generate", "models.llama31"),
        ("wikicontradict_generate", "models.qwen3"), ("wikicontradict_generate", "models.llama31"),
        ("wikicontradict_judge", "models.llama3_70b"), ("wikicontradict_judge_human", "models.llama3_70b"),
        ("diffgr_generate", "models.qwen3"), ("diffgr_generate", "models.llama31"),
        ("order_bge", "retrieval.reranker"), ("train_verifier", "verifier.base_model"),
        ("predict_verifier", "verifier.base_model")]
    assert all(r["fits"] and r["gpus_needed"] == 1 and r["tp"] == 1 for r in rows)
    by_rule = {r["rule"]: r for r in rows}
    j = by_rule["wikicontradict_judge"]
    assert j["precision"] == "fp8" and round(j["weights_gb"], 1) == 70.6 and round(j["kv_room_gb"], 1) == 52.3
    assert j["kv_tokens"] == 159_606  # 52.3e9 / 327,680 bytes per token
    assert j["max_model_len"] == 8192
    text = format_gpu_fit(rows, 141)
    judge_line = next(line for line in text.splitlines() if line.startswith("wikicontradict_judge "))
    assert judge_line.split() == ["wikicontradict_judge", "models.llama3_70b", "fp8", "70.6", "52.3",
                                  f"{j['kv_tokens']:,}", "8192", "1", "1", "yes"]
    assert gpu_fit_errors(PAPER, gpus_granted=1, device_memory_gb=141, workdir=tmp_path) == []


def test_tp2_judge_is_refused_on_one_granted_gpu(tmp_path):
    config = judge(PAPER, quantization=None, tensor_parallel_size=2)
    errors = gpu_fit_errors(config, gpus_granted=1, device_memory_gb=141, workdir=tmp_path)
    assert errors == [
        f"{rule}: models.llama3_70b needs 2 GPUs (tensor_parallel_size) but the run grants 1 (--resources gpu=1, "
        "as in workflow/profiles/default); set models.llama3_70b.quantization: fp8 and tensor_parallel_size: 1, "
        "or raise --resources gpu" for rule in ("wikicontradict_judge", "wikicontradict_judge_human")]
    assert gpu_fit_errors(config, gpus_granted=2, device_memory_gb=141, workdir=tmp_path) == []
    # no run-wide limit (SLURM): each job's own 2 GPUs hold the bf16 weights
    assert gpu_fit_errors(config, gpus_granted=None, device_memory_gb=141, workdir=tmp_path) == []


def test_bf16_judge_on_one_gpu_is_over_device_memory(tmp_path):
    config = judge(PAPER, quantization=None, tensor_parallel_size=1)
    errors = gpu_fit_errors(config, gpus_granted=None, device_memory_gb=141, workdir=tmp_path)
    assert len(errors) == 2
    assert errors[0].startswith("wikicontradict_judge: models.llama3_70b in bfloat16 (141.2 GB of weights over 1 GPU(s))")
    assert "set models.llama3_70b.quantization: fp8, or models.llama3_70b.tensor_parallel_size: 2" in errors[0]
    # an 80 GB device: even fp8 on one GPU leaves no room, two GPUs do
    fp8 = judge(PAPER, quantization="fp8", tensor_parallel_size=1)
    errors = gpu_fit_errors(fp8, gpus_granted=None, device_memory_gb=80, workdir=tmp_path)
    assert errors and all("tensor_parallel_size: 2" in e for e in errors)


def test_cpu_route_and_transformers_backend_refuse_nothing(tmp_path):
    config = judge(PAPER, quantization=None, tensor_parallel_size=2)
    assert gpu_fit_errors({**config, "gpu_jobs": "cpu"}, gpus_granted=1, device_memory_gb=141, workdir=tmp_path) == []
    transformers = copy.deepcopy(config)
    transformers["generation"]["backend"] = "transformers"
    assert gpu_fit_errors(transformers, gpus_granted=1, device_memory_gb=141, workdir=tmp_path) == []


def test_demo_models_unknown_until_built_then_read_from_config(tmp_path):
    demo = layered_config(REPO_ROOT)
    rows = gpu_fit_rows(demo, tmp_path)
    assert rows and all(r["params"] is None and r["fits"] is None for r in rows)
    assert "results/models/qwen3: unknown until built" in format_gpu_fit(rows, 141)
    assert gpu_fit_errors(demo, gpus_granted=1, device_memory_gb=141, workdir=tmp_path) == []
    built = tmp_path / "results" / "models" / "qwen3"
    built.mkdir(parents=True)
    cfg = {**HUB_CONFIGS["Qwen/Qwen3-8B"], "hidden_size": 64, "intermediate_size": 128, "vocab_size": 500,
           "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 32, "num_hidden_layers": 2}
    (built / "config.json").write_text(json.dumps(cfg))
    facts = model_facts("Qwen/Qwen3-8B", "results/models/qwen3", tmp_path)
    assert facts.params == decoder_params(cfg) and (facts.layers, facts.kv_heads, facts.head_dim) == (2, 1, 32)


def test_encoder_parameters_from_safetensors_headers(tmp_path):
    """A built encoder (not a decoder family) counts the tensors in its weight files' headers."""
    model = tmp_path / "results" / "models" / "verifier_base"
    model.mkdir(parents=True)
    (model / "config.json").write_text(json.dumps({"model_type": "deberta-v2"}))
    header = json.dumps({"__metadata__": {"format": "pt"},
                         "a": {"dtype": "F32", "shape": [10, 4], "data_offsets": [0, 160]},
                         "b": {"dtype": "F32", "shape": [4], "data_offsets": [160, 176]}}).encode()
    (model / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + bytes(176))
    assert model_facts(None, "results/models/verifier_base", tmp_path).params == 44
