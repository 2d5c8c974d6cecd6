"""A block-level model of vLLM's prefix cache, replaying a generation job's request stream.

In:  prompts in the order a job sends them, each as *segments* ``(segment_id, n_tokens)``
     (equal ids = equal tokens), and the cache capacity in blocks.
Out: :func:`replay` - prompt tokens, tokens served from cache, tokens to compute.

The model (vLLM's automatic prefix caching): a prompt is cut into blocks of
:data:`BLOCK_TOKENS` tokens; a full block is identified by its tokens and every token before
it (a hash chain), so two prompts share a block only when they share the whole prefix up to
its end. A request reuses its longest run of leading blocks already in the cache (at most
all but its last token: vLLM computes the last prompt token to sample), then its blocks
enter the cache as most recently used, evicting the least recently used beyond the
capacity. Requests are replayed one at a time: what an engine that schedules many requests
per step shares *within* one step is not modelled (on the vLLM CPU check,
tests/support/vllm_checks, identical prompts of one step did not all reuse each other's
blocks), so the share is an estimate of the order's effect, to be compared with the
hit rate a ``generate`` job logs from vLLM's own counters.

Streams: :func:`config_stream` builds the segments of a Study 2 job from the config alone
(no evidence run yet): per unit (claim x document) a claim segment, and per evidence source
a run of units whose ``short`` budget is a prefix of its ``long`` one (the evidence stage
keeps the longest fitting prefix of the ordered units, evidence/budget.py), the format's
instructions last (prompts.py: task, claim, evidence, then the answer options). Token
counts are upper bounds as in the planner: evidence = the budget, template + claim =
``planner.prompt_tokens_overhead``. :func:`text_segments` turns a real prompt's text into
segments of ``chars_per_token`` characters (a stand-in for a tokenizer that keeps exact
prefix sharing at the character level).
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..vocabulary import CONTROL_GOLD, CONTROL_NONE, CONTROL_REVERSED, CONTROL_SWAP, control_of
from .requests import condition_name, enumerate_conditions

BLOCK_TOKENS = 16  # vLLM's default KV-cache block size (tokens per block)

Segments = tuple[tuple[Any, int], ...]


@dataclass
class ReuseCounts:
    requests: int = 0
    prompt_tokens: int = 0
    reused_tokens: int = 0

    @property
    def computed_tokens(self) -> int:
        return self.prompt_tokens - self.reused_tokens

    @property
    def reuse_share(self) -> float:
        return self.reused_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def add(self, other: "ReuseCounts") -> "ReuseCounts":
        return ReuseCounts(self.requests + other.requests, self.prompt_tokens + other.prompt_tokens,
                           self.reused_tokens + other.reused_tokens)


def block_keys(segments: Segments, block_tokens: int = BLOCK_TOKENS) -> list[int]:
    """Keys of the prompt's full blocks: each hashes the previous key and the pieces
    ``(segment_id, start, end)`` the block holds, so equal keys mean equal prefixes."""
    keys: list[int] = []
    prev, pieces, room = 0, [], block_tokens
    for seg, n in segments:
        start = 0
        while start < n:
            take = min(room, n - start)
            pieces.append((seg, start, start + take))
            start += take
            room -= take
            if room == 0:
                prev = hash((prev, tuple(pieces)))
                keys.append(prev)
                pieces, room = [], block_tokens
    return keys


def replay(stream: Iterable[Segments], capacity_blocks: int, block_tokens: int = BLOCK_TOKENS) -> ReuseCounts:
    """Send ``stream`` through an LRU cache of ``capacity_blocks`` blocks (see module doc)."""
    return total(replay_by_label(stream, None, capacity_blocks, block_tokens).values())


def replay_by_label(stream: Iterable[Segments], labels: Sequence[str] | None, capacity_blocks: int,
                    block_tokens: int = BLOCK_TOKENS) -> dict[str, ReuseCounts]:
    """:func:`replay`, counted per label (``labels[i]`` of the i-th prompt; None: one label '')."""
    cache: OrderedDict[int, None] = OrderedDict()
    out: dict[str, ReuseCounts] = {}
    for i, segments in enumerate(stream):
        n_tokens = sum(n for _, n in segments)
        keys = block_keys(segments, block_tokens)
        hit = 0
        for k in keys:
            if k not in cache:
                break
            hit += 1
        counts = out.setdefault(labels[i] if labels is not None else "", ReuseCounts())
        counts.requests += 1
        counts.prompt_tokens += n_tokens
        counts.reused_tokens += min(hit * block_tokens, max(0, n_tokens - 1))
        for k in keys:
            cache[k] = None
            cache.move_to_end(k)
        while len(cache) > capacity_blocks:
            cache.popitem(last=False)
    return out


def text_segments(text: str, chars_per_token: float) -> Segments:
    """A prompt text as segments of ``chars_per_token`` characters (one token each)."""
    step = max(1, int(round(chars_per_token)))
    return tuple((text[i:i + step], 1) for i in range(0, len(text), step))


def _condition_segments(cond, unit: int, claim_id: int, overhead: int, budgets: Mapping[str, int]) -> Segments:
    """The segments of one condition's prompt for ``unit`` of claim ``claim_id`` (module doc)."""
    claim = overhead // 2
    head = (("task",), claim // 2), (("claim", claim_id), claim - claim // 2)
    tail = (("options", cond.format, cond.code_mapping), overhead - claim)
    source, budget = cond.source, cond.budget
    if source == CONTROL_NONE:
        evidence: tuple = ((("no evidence",), 4),)
    elif control_of(source) in (CONTROL_GOLD, CONTROL_SWAP, CONTROL_REVERSED):
        evidence = (((source, unit, budget), int(budgets[budget])),)
    else:
        first = min(int(v) for v in budgets.values())
        evidence = (((source, unit, "first"), first),)
        if int(budgets[budget]) > first:
            evidence += (((source, unit, budget), int(budgets[budget]) - first),)
    return head + evidence + (tail,)


def config_stream(gen: Mapping[str, Any], budgets: Mapping[str, int], overhead: int, n_units: int,
                  docs_per_claim: int = 1) -> list[tuple[str, str, Segments]]:
    """``(request id, condition name, segments)`` of every distinct request of a Study 2 job
    of ``n_units`` units (``docs_per_claim`` consecutive units share a claim: SciFact's
    abstracts), from the config (module doc): conditions of
    :func:`requests.enumerate_conditions` (named by :func:`requests.condition_name`); greedy
    requests with equal segments (the ``none`` control at every budget) are one, credited to
    the first condition asking them."""
    conds = enumerate_conditions(gen)
    seen: dict[str, tuple[str, Segments]] = {}
    for unit in range(n_units):
        for c in conds:
            segs = _condition_segments(c, unit, unit // max(1, docs_per_claim), overhead, budgets)
            sampling = ("greedy",) if c.replicate == 0 else ("seeded", unit, c.replicate)
            rid = hashlib.sha256(repr((segs, sampling)).encode()).hexdigest()
            seen.setdefault(rid, (condition_name(c), segs))
    return [(rid, name, segs) for rid, (name, segs) in seen.items()]


def hash_order(stream: Sequence[tuple[str, Segments]], n_shards: int) -> list[list[Segments]]:
    """The order before shared-prefix grouping: ``n_shards`` jobs by request-id hash, each
    sorted by request id."""
    shards: list[list[tuple[str, Segments]]] = [[] for _ in range(max(1, n_shards))]
    for rid, segs in stream:
        shards[int(rid[:8], 16) % len(shards)].append((rid, segs))
    return [[s for _, s in sorted(shard)] for shard in shards]


def grouped_order(stream: Sequence[tuple[str, Segments]]) -> list[Segments]:
    """One job, requests sorted by :func:`sort_key`."""
    return [s for _, s in sorted(stream, key=lambda item: (sort_key(item[1]), item[0]))]


def sort_key(segments: Segments) -> tuple:
    """Order of a prompt in its job: its segment ids in turn (a depth-first walk of the prefix
    tree, as :func:`requests.prefix_order` sorts real prompts by their text)."""
    return tuple(repr(seg) for seg, _ in segments)


def total(counts: Iterable[ReuseCounts]) -> ReuseCounts:
    """Sum of :class:`ReuseCounts`."""
    total = ReuseCounts()
    for c in counts:
        total = total.add(c)
    return total
