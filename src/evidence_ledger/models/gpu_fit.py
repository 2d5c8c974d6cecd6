"""Whether every GPU job a config runs fits the GPUs it gets, known before the run starts.

In:  a workflow config (a mapping), the directory holding ``results/`` (for locally built
     models), how many GPUs the run grants (``--resources gpu=N``; None = no limit, e.g. SLURM,
     where every job gets its own allocation) and the memory of one GPU (config
     ``device_memory_gb``, default one H200's 141 GB).
Out: :func:`gpu_fit_rows` - one row per GPU rule x model the config runs (``generate``,
     ``wikicontradict_generate``, ``wikicontradict_judge(_human)``, ``diffgr_generate``,
     ``order_bge``, ``train_verifier``, ``predict_verifier``); :func:`gpu_fit_errors` - one
     message per job that cannot run, naming the rule and the config key to change;
     :func:`format_gpu_fit` - the table the planner prints (``python -m evidence_ledger plan``).

The estimate, per GPU of a vLLM job with tensor-parallel size ``tp`` (vLLM allocates
``gpu_memory_utilization`` of the device and fills what the weights leave with KV cache):

    KV room = device_memory_gb * gpu_memory_utilization - weights / tp - ACTIVATION_OVERHEAD_GB

weights = parameters x bytes per parameter of the quantization (``models.<name>.quantization``)
or else of the dtype; every parameter is counted at that width (embeddings that stay in 16 bit
under fp8 are within the overhead). KV cache per token = 2 (K and V) x layers x KV heads x
head dim x bytes of the model dtype (vLLM's ``kv_cache_dtype: auto``). vLLM refuses to start
unless one sequence of ``max_model_len`` tokens fits its KV cache, so a job fits when
``tp x KV room / KV bytes per token >= max_model_len``. Encoder jobs (reranker, verifier) run
in plain PyTorch on one GPU: weights (x4 in training: fp32 weights, gradients and AdamW's two
moments) + the overhead must fit the device. GB here is 10^9 bytes.

Model facts come from a locally built model directory's ``config.json`` when it exists
(the demo's stand-ins under ``results/models/``), else from :data:`PUBLISHED` by Hub id;
neither makes a model's size "unknown until built" (never an error). No torch import.
"""
from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

GB = 1e9
DEFAULT_DEVICE_MEMORY_GB = 141.0  # one NVIDIA H200 (141 GB HBM3e)
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9  # vLLM's LLM(gpu_memory_utilization=...) default
ACTIVATION_OVERHEAD_GB = 4.0  # per GPU: activations, CUDA graphs, sampler and NCCL buffers (stated, not measured)
TP_SIZES = (1, 2, 4, 8)  # tensor-parallel sizes tried when counting the GPUs a model needs

# Bytes per parameter of each dtype (models.<name>.dtype) and vLLM quantization method.
BYTES_PER_PARAM = {
    "float32": 4.0, "fp32": 4.0,
    "bfloat16": 2.0, "float16": 2.0, "fp16": 2.0, "bf16": 2.0, "auto": 2.0,  # auto: the Hub checkpoints' bf16
    "fp8": 1.0, "int8": 1.0,
    "awq": 0.5, "gptq": 0.5, "int4": 0.5,
}
# vLLM quantization names accepted in models.<name>.quantization (LLM(quantization=...)).
QUANTIZATIONS = ("fp8", "awq", "gptq")
TRAINING_BYTES_PER_PARAM = 16.0  # fp32 weights + fp32 gradients + AdamW's two fp32 moments

# Decoder families whose parameter count follows from config.json (dense, gated MLP, GQA).
DECODER_TYPES = ("llama", "qwen2", "qwen3", "mistral")


@dataclass(frozen=True)
class ModelFacts:
    """What the fit needs of one model: parameters, and for decoders the KV-cache shape and
    the longest context (``max_position_embeddings``, vLLM's default ``max_model_len``)."""

    params: int | None
    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    max_positions: int | None = None
    source: str = ""


PUBLISHED: dict[str, ModelFacts] = {
    # https://huggingface.co/Qwen/Qwen3-8B: 8.2B parameters; config.json: 36 layers,
    # num_key_value_heads 8, head_dim 128, max_position_embeddings 40960.
    "Qwen/Qwen3-8B": ModelFacts(8_190_000_000, 36, 8, 128, 40960, "Hub page Qwen/Qwen3-8B"),
    # https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct: 8.03B parameters; config.json:
    # 32 layers, 8 KV heads, hidden 4096 / 32 heads = head dim 128, max_position_embeddings 131072.
    "meta-llama/Llama-3.1-8B-Instruct": ModelFacts(8_030_000_000, 32, 8, 128, 131072,
                                                   "Hub page meta-llama/Llama-3.1-8B-Instruct"),
    # https://huggingface.co/meta-llama/Meta-Llama-3-70B-Instruct: 70.6B parameters; config.json:
    # 80 layers, 8 KV heads, hidden 8192 / 64 heads = head dim 128, max_position_embeddings 8192.
    "meta-llama/Meta-Llama-3-70B-Instruct": ModelFacts(70_600_000_000, 80, 8, 128, 8192,
                                                       "Hub page meta-llama/Meta-Llama-3-70B-Instruct"),
    # https://huggingface.co/microsoft/deberta-large-mnli: 1.62 GB of float32 weights, ~406M parameters.
    "microsoft/deberta-large-mnli": ModelFacts(406_000_000, source="Hub page microsoft/deberta-large-mnli"),
    # https://huggingface.co/BAAI/bge-reranker-base: XLM-RoBERTa base, ~278M parameters.
    "BAAI/bge-reranker-base": ModelFacts(278_000_000, source="Hub page BAAI/bge-reranker-base"),
}


# --- arithmetic -------------------------------------------------------------------------


def bytes_per_param(dtype: str, quantization: str | None = None) -> float:
    """Bytes one parameter occupies: the quantization's width when set, else the dtype's."""
    return BYTES_PER_PARAM[quantization or dtype]


def weight_bytes(params: int, dtype: str, quantization: str | None = None) -> float:
    """Bytes of a model's weights in ``dtype`` / under ``quantization``."""
    return params * bytes_per_param(dtype, quantization)


def kv_bytes_per_token(facts: ModelFacts, dtype: str) -> float:
    """KV-cache bytes of one token over all layers: 2 (K, V) x layers x KV heads x head dim x
    bytes of the cache dtype (the model dtype; quantizing weights leaves the cache as is)."""
    return 2 * facts.layers * facts.kv_heads * facts.head_dim * BYTES_PER_PARAM[dtype]


def usable_bytes(device_memory_gb: float, gpu_memory_utilization: float) -> float:
    """Memory vLLM takes on one GPU (``gpu_memory_utilization`` of the device)."""
    return device_memory_gb * GB * gpu_memory_utilization


def kv_room_bytes(weights: float, tp: int, device_memory_gb: float, gpu_memory_utilization: float) -> float:
    """KV-cache room left on each GPU: usable memory - this GPU's share of the weights - overhead."""
    return usable_bytes(device_memory_gb, gpu_memory_utilization) - weights / tp - ACTIVATION_OVERHEAD_GB * GB


def kv_tokens(kv_room: float, tp: int, per_token: float) -> int:
    """Tokens of KV cache that fit over ``tp`` GPUs with ``kv_room`` bytes each (0 when none)."""
    return max(0, int(tp * kv_room // per_token))


def vllm_gpus_needed(weights: float, per_token: float, max_model_len: int, device_memory_gb: float,
                     gpu_memory_utilization: float) -> int | None:
    """Fewest GPUs (tensor-parallel size) holding the weights and one ``max_model_len`` sequence
    of KV cache; None when even the largest of :data:`TP_SIZES` does not."""
    for tp in TP_SIZES:
        room = kv_room_bytes(weights, tp, device_memory_gb, gpu_memory_utilization)
        if kv_tokens(room, tp, per_token) >= max_model_len:
            return tp
    return None


def encoder_fits(needed: float, device_memory_gb: float) -> bool:
    """Whether a one-GPU PyTorch job of ``needed`` bytes (+ the overhead) fits the device."""
    return needed + ACTIVATION_OVERHEAD_GB * GB <= device_memory_gb * GB


# --- model facts ------------------------------------------------------------------------


def decoder_params(cfg: Mapping[str, Any]) -> int:
    """Parameters of a dense GQA decoder from its config.json (embeddings, per layer q/k/v/o
    projections, gated MLP, two norms (+ Qwen3's q/k norms), final norm, untied LM head)."""
    hidden, inter, vocab = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    heads = cfg["num_attention_heads"]
    kv_heads = cfg.get("num_key_value_heads", heads)
    head_dim = cfg.get("head_dim") or hidden // heads
    attn = hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2
    if cfg.get("attention_bias"):
        attn += heads * head_dim + 2 * kv_heads * head_dim
    norms = 2 * hidden + (2 * head_dim if cfg.get("model_type") == "qwen3" else 0)
    per_layer = attn + 3 * hidden * inter + norms
    embed = vocab * hidden
    head = 0 if cfg.get("tie_word_embeddings", False) else vocab * hidden
    return embed + cfg["num_hidden_layers"] * per_layer + hidden + head


def safetensors_params(model_dir: Path) -> int | None:
    """Parameters stored in a directory's ``*.safetensors`` files, read from their JSON headers
    (tensor shapes); None when it has none."""
    files = sorted(model_dir.glob("*.safetensors"))
    if not files:
        return None
    total = 0
    for path in files:
        with open(path, "rb") as fh:
            (size,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(size))
        for name, info in header.items():
            if name != "__metadata__":
                n = 1
                for dim in info["shape"]:
                    n *= dim
                total += n
    return total


def local_facts(model_dir: Path) -> ModelFacts:
    """Facts of a locally built model directory, from its config.json (and weight headers)."""
    cfg = json.loads((model_dir / "config.json").read_text())
    if cfg.get("model_type") in DECODER_TYPES:
        heads = cfg["num_attention_heads"]
        return ModelFacts(decoder_params(cfg), cfg["num_hidden_layers"], cfg.get("num_key_value_heads", heads),
                          cfg.get("head_dim") or cfg["hidden_size"] // heads, cfg.get("max_position_embeddings"),
                          f"{model_dir}/config.json")
    return ModelFacts(safetensors_params(model_dir), source=f"{model_dir}/config.json")


def model_facts(hub_id: str | None, local_dir: str | None, workdir: Path, revision: str | None = None
                ) -> ModelFacts:
    """A local directory's facts when it exists (``local_dir`` relative to ``workdir``), else, given
    the ``revision``, those of the decoder ``config.json`` of ``hub_id``'s snapshot in the local
    Hugging Face cache (offline; weights or not: :func:`snapshot_facts`), else the published
    facts of ``hub_id``; ``params`` None when none is known."""
    if local_dir:
        path = Path(local_dir) if Path(local_dir).is_absolute() else workdir / local_dir
        if (path / "config.json").is_file():
            return local_facts(path)
        return ModelFacts(None, source=f"{local_dir}: unknown until built")
    cached = snapshot_facts(hub_id, revision) if revision else None
    if cached is not None:
        return cached
    return PUBLISHED.get(hub_id or "", ModelFacts(None, source=f"{hub_id}: no published facts here"))


# the config.json keys a decoder's parameters and KV shape are computed from (decoder_params)
DECODER_KEYS = ("hidden_size", "intermediate_size", "vocab_size", "num_attention_heads", "num_hidden_layers")


def snapshot_facts(hub_id: str | None, revision: str) -> ModelFacts | None:
    """Facts of ``hub_id``'s cached snapshot at ``revision`` from its ``config.json`` when that is
    a decoder's (:data:`DECODER_TYPES`, :data:`DECODER_KEYS`); None when the cache lacks the
    snapshot or its config says less (then the published facts count)."""
    from .model_files import cached_snapshot

    directory = cached_snapshot(hub_id, revision)
    path = None if directory is None else directory / "config.json"
    if path is None or not path.is_file():
        return None
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(cfg, dict) or cfg.get("model_type") not in DECODER_TYPES or any(k not in cfg for k in DECODER_KEYS):
        return None
    return local_facts(directory)


# --- the config's GPU jobs --------------------------------------------------------------


def config_device_memory_gb(config: Mapping[str, Any]) -> float:
    """Memory of one GPU in GB (config ``device_memory_gb``; default one H200)."""
    return float(config.get("device_memory_gb", DEFAULT_DEVICE_MEMORY_GB))


def tensor_parallel_size(config: Mapping[str, Any], model: str) -> int:
    """vLLM tensor-parallel size of ``model``: ``models.<model>.tensor_parallel_size``, else
    ``generation.tensor_parallel_size`` (1 when neither is set)."""
    default = (config.get("generation") or {}).get("tensor_parallel_size", 1)
    return int(((config.get("models") or {}).get(model) or {}).get("tensor_parallel_size", default))


# Generation backends whose model runs behind a server: their jobs only send requests, hold no GPU.
SERVED_BACKENDS = ("openai",)


def model_backend(config: Mapping[str, Any], model: str) -> str:
    """The backend ``model`` generates with: ``models.<model>.backend``, else ``generation.backend``."""
    own = ((config.get("models") or {}).get(model) or {}).get("backend")
    return own or (config.get("generation") or {}).get("backend", "vllm")


def served(config: Mapping[str, Any], model: str) -> bool:
    """Whether ``model`` is a served model (backend in :data:`SERVED_BACKENDS`): its jobs are clients."""
    return model_backend(config, model) in SERVED_BACKENDS


def model_job_gpus(config: Mapping[str, Any], model: str) -> int:
    """GPUs one generation job of ``model`` occupies: its tensor-parallel size under vLLM, none for
    a served model (the job is a client of the server, which holds the GPUs), else 1."""
    if served(config, model):
        return 0
    return tensor_parallel_size(config, model) if model_backend(config, model) == "vllm" else 1


def _enabled(config: Mapping[str, Any], study: str) -> bool:
    return bool((config.get("studies") or {}).get(study, False))


def generation_jobs(config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(rule, model name) of every generation job kind the config runs, in pipeline order."""
    jobs = []
    if _enabled(config, "study2"):
        jobs += [("generate", m) for m in config["generation"]["models"]]
    if _enabled(config, "wikicontradict"):
        wc = config["wikicontradict"]
        jobs += [("wikicontradict_generate", m) for m in wc["models"]]
        jobs.append(("wikicontradict_judge", wc["judge"]["model"]))
        if ((config.get("data") or {}).get("wikicontradict") or {}).get("human_judgements"):
            jobs.append(("wikicontradict_judge_human", wc["judge"]["model"]))
    if _enabled(config, "diffgr"):
        jobs += [("diffgr_generate", m) for m in config["diffgr"]["models"]]
    return jobs


def vllm_row(config: Mapping[str, Any], rule: str, model: str, workdir: Path, memory_gb: float) -> dict:
    """The fit of one generation job (vLLM's KV arithmetic; KV fields None under transformers)."""
    mcfg = config["models"][model]
    gen = config.get("generation") or {}
    vllm_opts = gen.get("vllm") or {}
    dtype, quant = mcfg.get("dtype", "bfloat16"), mcfg.get("quantization")
    facts = model_facts(mcfg.get("hub_id"), mcfg.get("local_dir"), workdir, mcfg.get("revision"))
    tp = model_job_gpus(config, model)
    row = {"rule": rule, "key": f"models.{model}", "precision": quant or dtype, "engine": model_backend(config, model),
           "params": facts.params, "source": facts.source, "tp": tp, "weights_gb": None, "kv_room_gb": None,
           "kv_tokens": None, "max_model_len": vllm_opts.get("max_model_len") or facts.max_positions,
           "gpus_needed": None, "fits": None}
    if facts.params is None:
        return row
    weights = weight_bytes(facts.params, dtype, quant)
    row["weights_gb"] = weights / GB
    if row["engine"] != "vllm" or facts.layers is None or row["max_model_len"] is None:
        row["gpus_needed"] = 1 if encoder_fits(weights, memory_gb) else None
        row["fits"] = row["gpus_needed"] == 1
        return row
    util = float(vllm_opts.get("gpu_memory_utilization", DEFAULT_GPU_MEMORY_UTILIZATION))
    per_token = kv_bytes_per_token(facts, dtype)
    room = kv_room_bytes(weights, tp, memory_gb, util)
    row.update(kv_room_gb=room / GB, kv_tokens=kv_tokens(room, tp, per_token), utilization=util,
               gpus_needed=vllm_gpus_needed(weights, per_token, int(row["max_model_len"]), memory_gb, util))
    row["fits"] = row["gpus_needed"] == 1
    return row


def encoder_row(rule: str, key: str, precision: str, facts: ModelFacts, per_param: float, memory_gb: float) -> dict:
    """The fit of a one-GPU PyTorch job holding ``per_param`` bytes per parameter."""
    needed = None if facts.params is None else facts.params * per_param
    fits = None if needed is None else encoder_fits(needed, memory_gb)
    return {"rule": rule, "key": key, "precision": precision, "engine": "torch", "params": facts.params,
            "source": facts.source, "tp": 1, "weights_gb": None if needed is None else needed / GB,
            "kv_room_gb": None, "kv_tokens": None, "max_model_len": None,
            "gpus_needed": None if fits is None else (1 if fits else None), "fits": fits}


def encoder_rows(config: Mapping[str, Any], workdir: Path, memory_gb: float) -> list[dict]:
    """Rows of the reranker (``order_bge``) and the verifier (``train_verifier``, ``predict_verifier``)."""
    rows = []
    reranker = (config.get("retrieval") or {}).get("reranker")
    if reranker and (config.get("retrieval") or {}).get("datasets"):
        fp16 = bool(reranker.get("fp16"))
        facts = model_facts(reranker.get("hub_id"), reranker.get("local_dir"), workdir)
        rows.append(encoder_row("order_bge", "retrieval.reranker", "fp16" if fp16 else "float32", facts,
                                2.0 if fp16 else 4.0, memory_gb))
    verifier = config.get("verifier") or {}
    if _enabled(config, "study1") and verifier:
        if verifier.get("demo_model"):
            key, facts = "verifier.demo_model", model_facts(None, "results/models/verifier_base", workdir)
        else:
            key, facts = "verifier.base_model", model_facts(verifier["base_model"]["hub_id"], None, workdir)
        rows.append(encoder_row("train_verifier", key, "fp32+AdamW", facts, TRAINING_BYTES_PER_PARAM, memory_gb))
        rows.append(encoder_row("predict_verifier", key, "float32", facts, BYTES_PER_PARAM["float32"], memory_gb))
    return rows


def gpu_fit_rows(config: Mapping[str, Any], workdir: Path | str = ".", device_memory_gb: float | None = None) -> list[dict]:
    """One row per GPU rule x model the config runs (see the module docstring); GPUs of
    ``device_memory_gb`` (default: config ``device_memory_gb``)."""
    workdir = Path(workdir)
    memory_gb = config_device_memory_gb(config) if device_memory_gb is None else float(device_memory_gb)
    defined = config.get("models") or {}  # an undefined model is the conflict stage's error to report
    # a served model's fit is its server's: its jobs hold no GPU
    rows = [vllm_row(config, rule, model, workdir, memory_gb) for rule, model in generation_jobs(config)
            if model in defined and not served(config, model)]
    return rows + encoder_rows(config, workdir, memory_gb)


def checks_gpu_fit(config: Mapping[str, Any]) -> bool:
    """False where nothing asks for a GPU that could refuse the job: the CPU route
    (``gpu_jobs: cpu``) or generation through transformers (the demo on CPU), ``generation.backend``
    and every model's own ``backend``."""
    models = {model for _, model in generation_jobs(config) if model in (config.get("models") or {})}
    vllm = (config.get("generation") or {}).get("backend") == "vllm" or any(
        model_backend(config, m) == "vllm" for m in models)
    return config.get("gpu_jobs", "gpu") != "cpu" and vllm


def row_errors(row: Mapping[str, Any], gpus_granted: int | None, memory_gb: float) -> list[str]:
    """Why one job cannot run (empty when it can): more GPUs than granted, or over the device."""
    rule, key, tp = row["rule"], row["key"], row["tp"]
    errors = []
    if gpus_granted is not None and tp > gpus_granted:
        errors.append(
            f"{rule}: {key} needs {tp} GPUs (tensor_parallel_size) but the run grants {gpus_granted} "
            f"(--resources gpu={gpus_granted}, as in workflow/profiles/default); set {key}.quantization: fp8 and "
            f"tensor_parallel_size: 1, or raise --resources gpu")
    if row["weights_gb"] is None or row["gpus_needed"] is not None and row["gpus_needed"] <= tp:
        return errors
    if row["kv_tokens"] is None:
        errors.append(
            f"{rule}: {key} needs {row['weights_gb']:.1f} GB + {ACTIVATION_OVERHEAD_GB:g} GB overhead on one GPU "
            f"of {memory_gb:g} GB (device_memory_gb); use a smaller model or a larger GPU")
        return errors
    errors.append(
        f"{rule}: {key} in {row['precision']} ({row['weights_gb']:.1f} GB of weights over {tp} GPU(s)) leaves "
        f"KV cache for {row['kv_tokens']:,} tokens but max_model_len is {row['max_model_len']:,} on GPUs of "
        f"{memory_gb:g} GB (device_memory_gb) at gpu_memory_utilization {row['utilization']:g}; set "
        f"{key}.quantization: fp8, or {key}.tensor_parallel_size: {row['gpus_needed'] or 'more'} with as many GPUs, "
        f"or lower generation.vllm.max_model_len")
    return errors


def gpu_fit_errors(config: Mapping[str, Any], gpus_granted: int | None, device_memory_gb: float,
                   workdir: Path | str = ".") -> list[str]:
    """Messages naming the rule and the config key of every GPU job that cannot run (see
    :func:`checks_gpu_fit` for when nothing is refused). ``gpus_granted`` None: no run-wide
    limit, each job's own request is checked against device memory only."""
    if not checks_gpu_fit(config):
        return []
    return [e for row in gpu_fit_rows(config, workdir, device_memory_gb)
            for e in row_errors(row, gpus_granted, float(device_memory_gb))]


# --- the table ----------------------------------------------------------------------------


def _cell(value, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def format_gpu_fit(rows: Sequence[Mapping[str, Any]], memory_gb: float) -> str:
    """The GPU-fit table: rule, model, dtype/quantization, weights, KV room, tokens of KV that
    fit vs max_model_len, GPUs needed, and whether the job fits one GPU."""
    head = (f"{'rule':<27} {'model':<22} {'precision':<11} {'weights_GB':>10} {'KV_room_GB':>10} "
            f"{'KV_tokens':>10} {'max_len':>8} {'TP':>3} {'GPUs_needed':>11} {'fits_1_GPU':>10}")
    lines = [head, "-" * len(head)]
    for r in rows:
        needed = _cell(r["gpus_needed"], "d") if r["weights_gb"] is not None else "?"
        if r["weights_gb"] is not None and r["gpus_needed"] is None:
            needed = f">{TP_SIZES[-1]}"
        fits = "unknown" if r["fits"] is None else ("yes" if r["fits"] else "no")
        lines.append(f"{r['rule']:<27} {r['key']:<22} {r['precision']:<11} {_cell(r['weights_gb'], '.1f'):>10} "
                     f"{_cell(r['kv_room_gb'], '.1f'):>10} {_cell(r['kv_tokens'], ','):>10} "
                     f"{_cell(r['max_model_len'], 'd'):>8} {r['tp']:>3} {needed:>11} {fits:>10}")
    unknown = sorted({r["source"] for r in rows if r["params"] is None})
    lines.append("-" * len(head))
    lines.append(f"per GPU: {memory_gb:g} GB (device_memory_gb; default {DEFAULT_DEVICE_MEMORY_GB:g} = one H200) x gpu_memory_utilization for vLLM, "
                 f"minus {ACTIVATION_OVERHEAD_GB:g} GB activation overhead; KV_tokens over TP GPUs"
                 + ("; " + "; ".join(unknown) if unknown else ""))
    return "\n".join(lines)
