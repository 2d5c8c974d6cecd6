"""transformers ``generate`` backend: the fallback when vLLM is absent (and the fast demo path).

In:  rendered prompts + :class:`SamplingSpec` per request. Out: :class:`Generation` per request.

Requests sharing decoding settings are generated in batches of ``batch_size`` (left
padding). Sampled requests draw from one ``torch.Generator`` per request seeded with its
``SamplingSpec.seed`` (:class:`SeededSampler`), so the random stream of a request never
depends on the other requests of its batch or on the global torch RNG. The model is
loaded offline from the directory ``ModelSpec.resolve_files`` picks (``model_files``: pickle
weights refused unless ``models.<name>.allow_pickle_weights``), with ``trust_remote_code``
from config (default False), on CUDA when available, else CPU (``float32`` on CPU unless the
config asks for bfloat16).
"""
from __future__ import annotations

from typing import Any, Sequence

from transformers import LogitsProcessor, LogitsProcessorList

from ...models.model_files import load_kwargs, tokenizer_kwargs
from .base import Backend, Generation, ModelSpec, SamplingSpec, library_versions
from .chat_tokenizer import ChatTokenizerMixin

_DTYPES = {"bfloat16": "bfloat16", "bf16": "bfloat16", "float32": "float32", "fp32": "float32", "float16": "float16"}


class TransformersBackend(ChatTokenizerMixin, Backend):
    name = "transformers"

    def __init__(self, spec: ModelSpec, *, batch_size: int, device: str | None = None, **_ignored: Any):
        if spec.quantization:
            raise ValueError(f"model {spec.name!r}: quantization {spec.quantization!r} is applied by the vllm "
                             f"backend only; set generation.backend: vllm or models.{spec.name}.quantization: null")
        super().__init__(spec)
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self._torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.batch_size = max(1, int(batch_size))
        self.files = spec.resolve_files()
        self.tokenizer = AutoTokenizer.from_pretrained(
            str(self.files.directory), **tokenizer_kwargs(spec.trust_remote_code)
        )
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        dtype = getattr(torch, _DTYPES.get(spec.dtype, spec.dtype))
        self.model = AutoModelForCausalLM.from_pretrained(
            str(self.files.directory), dtype=dtype, **load_kwargs(self.files, spec.trust_remote_code)
        ).to(self.device)
        self.model.eval()
        eos = self.model.generation_config.eos_token_id
        self.eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [self.tokenizer.eos_token_id])

    def settings(self) -> dict[str, Any]:
        return {}

    def provenance(self) -> dict[str, Any]:
        torch = self._torch
        device = self.device
        if device.startswith("cuda"):
            device = f"cuda:{torch.cuda.get_device_name(0)}"
        return {
            "library_versions": library_versions(["torch", "transformers"]),
            "device": device,
            "prefix_caching": False,
        }

    def _generate_batch(self, ids_list: list[list[int]], specs: Sequence[SamplingSpec]) -> list[Generation]:
        """One ``generate`` call; all specs share temperature/top-p/top-k/penalty/max tokens."""
        torch = self._torch
        spec = specs[0]
        width = max(len(x) for x in ids_list)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(x)) + x for x in ids_list], device=self.device)
        attention = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in ids_list], device=self.device)
        kwargs: dict[str, Any] = dict(
            max_new_tokens=spec.max_new_tokens,
            repetition_penalty=spec.repetition_penalty,
            pad_token_id=pad,
            eos_token_id=sorted(self.eos_ids),
            do_sample=False,
            temperature=None,
            top_p=None,
            top_k=None,
        )
        if not spec.greedy:
            # Sampling happens in our processor with one generator per row (see class doc).
            kwargs["logits_processor"] = LogitsProcessorList(
                [SeededSampler(spec.temperature, spec.top_p, spec.top_k, [s.seed for s in specs], self.device)]
            )
        with torch.no_grad():
            out = self.model.generate(input_ids=input_ids, attention_mask=attention, **kwargs)
        results = []
        for i, prompt_ids in enumerate(ids_list):
            new = out[i, width:].tolist()
            n_out = len(new)
            finish = "length"
            for j, tok in enumerate(new):
                if tok in self.eos_ids:
                    n_out, finish = j + 1, "stop"
                    break
            text = self.tokenizer.decode(new[:n_out], skip_special_tokens=True)
            results.append(Generation(text, len(prompt_ids), n_out, finish))
        return results

    def generate(self, prompts: Sequence[str], samplings: Sequence[SamplingSpec]) -> list[Generation]:
        if len(prompts) != len(samplings):
            raise ValueError("one SamplingSpec per prompt")
        ids = [self.token_ids(p) for p in prompts]
        results: list[Generation | None] = [None] * len(prompts)
        # Requests with identical decoding settings (all but the seed) share batches.
        groups: dict[tuple, list[int]] = {}
        for i, s in enumerate(samplings):
            key = (s.greedy, s.max_new_tokens, s.repetition_penalty)
            if not s.greedy:
                key += (s.temperature, s.top_p, s.top_k)
            groups.setdefault(key, []).append(i)
        for idx in groups.values():
            idx = sorted(idx, key=lambda i: len(ids[i]))  # similar lengths share a batch: less padding
            for start in range(0, len(idx), self.batch_size):
                chunk = idx[start:start + self.batch_size]
                gens = self._generate_batch([ids[i] for i in chunk], [samplings[i] for i in chunk])
                for i, g in zip(chunk, gens):
                    results[i] = g
        return results  # type: ignore[return-value]


class SeededSampler(LogitsProcessor):
    """Temperature -> top-k -> top-p sampling (the order transformers' warpers use) with one
    ``torch.Generator`` per batch row, seeded with that request's seed.

    ``generate`` runs in greedy mode and this processor turns each row's scores into a
    one-hot choice of the sampled token, so a row's random stream depends only on its own
    seed, not on the batch it shares or on the global torch RNG.
    """

    def __init__(self, temperature: float, top_p: float, top_k: int, seeds: Sequence[int], device):
        import torch

        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.top_k = int(top_k)
        self.generators = [torch.Generator(device="cpu").manual_seed(int(s)) for s in seeds]
        self.device = device

    def __call__(self, input_ids, scores):
        import torch

        scores = scores.float() / self.temperature
        if self.top_k > 0:
            k = min(self.top_k, scores.shape[-1])
            kth = torch.topk(scores, k, dim=-1).values[..., -1, None]
            scores = scores.masked_fill(scores < kth, float("-inf"))
        if self.top_p < 1.0:
            sorted_logits, sorted_idx = torch.sort(scores, descending=False, dim=-1)
            cum = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
            remove_sorted = cum <= (1 - self.top_p)
            remove_sorted[..., -1:] = False  # keep at least the most likely token
            remove = remove_sorted.scatter(1, sorted_idx, remove_sorted)
            scores = scores.masked_fill(remove, float("-inf"))
        probs = scores.softmax(dim=-1).cpu()
        out = torch.full_like(scores, float("-inf"))
        for row, gen in enumerate(self.generators):
            tok = torch.multinomial(probs[row], 1, generator=gen)
            out[row, tok.to(out.device)] = 0.0
        return out
