"""Generate the responses of one model x dataset (or one shard of it) through the cache.

In:  a REQUESTS table, a shard index, a loaded backend and a response cache.
Out: a RESPONSES table (``tables.generation.RESPONSES``): one row per unique ``request_id``
     of the shard, sorted by ``request_id``, with the raw text and its provenance.

The shard's unique requests go to the backend in shared-prefix order
(:func:`requests.prefix_order`), ``call_size`` per backend call; the output order does not
depend on it.

:func:`gather_shard_responses` concatenates shard tables and checks that every unique request of
the plan is answered exactly once.
"""
from __future__ import annotations

import logging
from collections import Counter
from typing import Callable

import pyarrow as pa

from ..tables.generation import RESPONSES
from .backends.base import Backend, ChatRequest
from .cache import ResponseCache, generate_cached
from .requests import prefix_order, request_sampling

log = logging.getLogger(__name__)


def unique_requests(requests: pa.Table, shard: int | None = None) -> list[dict]:
    """First row of every distinct ``request_id`` (of one shard when given), in shared-prefix
    order (:func:`requests.prefix_order`)."""
    seen: dict[str, dict] = {}
    for row in requests.to_pylist():
        if shard is not None and row["shard"] != shard:
            continue
        seen.setdefault(row["request_id"], row)
    return prefix_order(list(seen.values()))


def generate_responses(
    requests: pa.Table,
    backend: Backend,
    cache: ResponseCache,
    call_size: int,
    shard: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> pa.Table:
    """RESPONSES rows for the unique requests of ``shard`` (all when None), sorted by id;
    generated ``call_size`` per backend call in shared-prefix order."""
    rows = unique_requests(requests, shard)
    if not rows:
        return RESPONSES.empty()
    model, dataset = rows[0]["model"], rows[0]["dataset"]
    chat = [ChatRequest.from_messages(r["messages"], request_sampling(r)) for r in rows]
    tag = f"{model}-{dataset}-s{shard if shard is not None else 'all'}"
    gens = generate_cached(backend, chat, cache, batch_size=call_size, tag=tag, progress=progress,
                           request_names=[r["request_id"] for r in rows])
    out = []
    for r, g in zip(rows, gens):
        ident = g.identity
        out.append({
            "model": r["model"],
            "dataset": r["dataset"],
            "request_id": r["request_id"],
            "cache_key": g.cache_key,
            "raw_response": g.text,
            "n_prompt_tokens": g.n_prompt_tokens,
            "n_output_tokens": g.n_output_tokens,
            "finish_reason": g.finish_reason,
            "backend": ident.get("backend", ""),
            "library_versions": ident.get("library_versions", ""),
            "device": ident.get("device", ""),
            "model_id": ident.get("model_id", ""),
            "model_revision": ident.get("model_revision", ""),
            "weights_hash": ident.get("weights_hash", ""),
            "dtype": ident.get("dtype", ""),
            "chat_template_hash": ident.get("chat_template_hash", ""),
            "prefix_caching": bool(ident.get("prefix_caching", False)),
            "served_model": ident.get("served_model", ""),
            "system_fingerprint": ident.get("system_fingerprint", ""),
        })
    out.sort(key=lambda r: r["request_id"])
    return pa.Table.from_pylist(out, schema=RESPONSES.schema)


def gather_shard_responses(requests: pa.Table, shard_tables: list[pa.Table]) -> pa.Table:
    """Concatenate shard responses; every planned unique request must appear exactly once."""
    table = pa.concat_tables([t.cast(RESPONSES.schema) for t in shard_tables]) if shard_tables else RESPONSES.empty()
    ids = table.column("request_id").to_pylist()
    if len(ids) != len(set(ids)):
        dup = sorted(i for i, n in Counter(ids).items() if n > 1)[:3]
        raise ValueError(f"responses: request ids answered more than once across shards: {dup}")
    planned = set(requests.column("request_id").to_pylist())
    missing = planned - set(ids)
    extra = set(ids) - planned
    if missing or extra:
        raise ValueError(f"responses: {len(missing)} planned requests unanswered, {len(extra)} not planned")
    order = sorted(range(len(ids)), key=lambda i: ids[i])
    return table.take(pa.array(order, type=pa.int64()))
