"""Chat requests as table rows and their generation through the shared backends + cache
(the WikiContradict and DiffGR stages).

In:  user prompts (str) with decoding settings from config; a model entry of ``models:``.
Out: request columns (messages, sampling, ``request_id``) for a stage's request tables, and
     generated texts with provenance, via ``generation.cache.generate_cached`` (no second
     backend or cache here), after :mod:`.prompt_fit` found every prompt within the model's
     context; :func:`progress_logger` reports the generation's progress.

``request_id`` is ``generation.requests.request_id`` (sha256 of messages + sampling incl. seed
and max_new_tokens): it names a request independently of the model, so identical prompts
share it; the cache key (model identity + rendered prompt + sampling) is recorded beside it.
"""
from __future__ import annotations

import logging
from typing import Callable, Mapping, Sequence

from tqdm import tqdm

from .backends.base import ChatRequest, SamplingSpec, load_backend, model_spec_from_config
from .cache import ResponseCache, generate_cached
from .prompt_fit import refuse_long_prompts
from .requests import request_id

log = logging.getLogger(__name__)


def greedy_sampling(max_new_tokens: int, seed: int) -> SamplingSpec:
    """Greedy decoding (temperature 0; top-p/top-k unused) with at most ``max_new_tokens``."""
    return SamplingSpec(temperature=0.0, top_p=1.0, top_k=0, repetition_penalty=1.0,
                        max_new_tokens=int(max_new_tokens), seed=int(seed))


def user_messages(prompt: str, system_message: str = "") -> list[dict]:
    """Chat messages of one request: the system message when non-empty, then the user prompt."""
    msgs = [{"role": "system", "content": system_message}] if system_message else []
    return msgs + [{"role": "user", "content": prompt}]


def request_columns(prompt: str, sampling: SamplingSpec, system_message: str = "") -> dict:
    """Columns ``messages``, sampling fields and ``request_id`` of one request row
    (``system_message`` '' = the user message alone)."""
    msgs = user_messages(prompt, system_message)
    return {"messages": msgs, **sampling.as_dict(), "request_id": request_id(msgs, sampling)}


def chat_request_from_row(row: Mapping) -> ChatRequest:
    """Rebuild the ``ChatRequest`` of a request row written with :func:`request_columns`."""
    sampling = SamplingSpec(temperature=float(row["temperature"]), top_p=float(row["top_p"]),
                            top_k=int(row["top_k"]), repetition_penalty=float(row["repetition_penalty"]),
                            max_new_tokens=int(row["max_new_tokens"]), seed=int(row["seed"]))
    return ChatRequest.from_messages(row["messages"], sampling)


def provenance_columns(gen) -> dict:
    """Provenance columns of a ``CachedGeneration`` (cache key, tokens, backend, model identity)."""
    ident = gen.identity
    return {"cache_key": gen.cache_key, "n_output_tokens": int(gen.n_output_tokens),
            "finish_reason": gen.finish_reason, "backend": ident.get("backend", ""),
            "model_id": ident.get("model_id", ""), "model_revision": ident.get("model_revision", ""),
            "weights_hash": ident.get("weights_hash", "")}


def generate_for_rows(rows: Sequence[Mapping], model_name: str, model_cfg: Mapping, backend_name: str,
                      backend_options: Mapping, cache_dir: str, batch_size: int, local_dir: str | None = None,
                      tag: str = "conflict",
                      progress: Callable[[int], None] | None = None, item_keys: Sequence[str] = (),
                      output_key: str = "max_new_tokens") -> list:
    """Generate (or read from the cache) the response of every request row, in row order.

    ``model_cfg`` is the model's ``models:`` config entry; ``local_dir`` a locally built model
    directory that, when it exists, wins over the Hub id (see ``model_spec_from_config``).
    Before the engine loads, a prompt that does not fit the model's context stops the job with
    one line naming the request (its ``item_keys`` columns) and the keys to change
    (``output_key``: the config key of ``max_new_tokens``; :mod:`.prompt_fit`).
    """
    requests = [chat_request_from_row(r) for r in rows]
    if not requests:
        return []
    refuse_long_prompts(f"{tag}, models.{model_name}", rows, model_name, model_cfg, backend_name, backend_options,
                        local_dir=local_dir, item_keys=item_keys, output_key=output_key)
    spec = model_spec_from_config(model_name, dict(model_cfg), local_dir=local_dir)
    backend = load_backend(backend_name, spec, **dict(backend_options or {}))
    try:
        return generate_cached(backend, requests, ResponseCache(cache_dir), batch_size=batch_size,
                               tag=tag, progress=progress, request_names=[r["request_id"] for r in rows])
    finally:
        backend.close()


def progress_logger(total: int, what: str) -> Callable[[int], None]:
    """A tqdm bar (stderr) plus one log line per generated batch."""
    bar = tqdm(total=total, desc=what, mininterval=5.0)

    def update(n: int) -> None:
        bar.update(n)
        log.info("%s: %d / %d generated", what, bar.n, total)

    return update
