"""Config-mode counting: requests and prompt tokens per condition from population sizes alone.

In:  the run's config, a dataset and a model, the run directory.
Out: the planner's ``config``-basis rows (upper bounds; :mod:`.planner` says how they are
     counted) with the prompt tokens served from the prefix cache, replayed over the config's
     request stream; the KV-cache blocks of one ``generate`` job.
"""
from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Mapping

from ..models.gpu_fit import config_device_memory_gb, model_backend, served, vllm_row
from . import prefix_reuse
from .plan_results import population
from .requests import condition_name, enumerate_conditions


def plan_from_config(config: Mapping[str, Any], dataset: str, model: str, workdir: Path,
                     data_root: Path | None = None, reuse: bool = True) -> list[dict]:
    """Counts per condition from population sizes alone (see module docstring); ``reuse``
    False skips the prefix-cache replay (no reused tokens: what the preflight needs)."""
    gen = config["generation"]
    planner = gen["planner"]
    n_claims, _ = population(config, dataset, workdir, data_root)
    units = n_claims * int(planner.get("docs_per_claim", {}).get(dataset, 1))
    out: OrderedDict[str, dict] = OrderedDict()
    seen_none_formats: set[tuple[str, str]] = set()
    for c in enumerate_conditions(gen):
        name = condition_name(c)
        asked = units
        if c.source == "none":  # no evidence: one greedy request per claim and format
            key = (c.format, c.code_mapping)
            if key in seen_none_formats:
                continue
            seen_none_formats.add(key)
            asked = n_claims
        budgets = config["evidence"]["budgets"]
        ev_tokens = 0 if c.source == "none" else int(budgets[c.budget])
        d = out.setdefault(name, {"requests": 0, "prompt_tokens": 0})
        d["requests"] += asked
        d["prompt_tokens"] += asked * (int(planner["prompt_tokens_overhead"]) + ev_tokens)
    shares = config_reuse_shares(config, model, dataset, units, workdir) if reuse else {}
    for name, d in out.items():
        d["reused_tokens"] = int(round(d["prompt_tokens"] * shares.get(name, 0.0)))
    return [{"model": model, "dataset": dataset, "condition": k, "basis": "config", "exact": False, **v}
            for k, v in out.items()]


def cache_blocks(config: Mapping[str, Any], model: str, workdir: Path) -> int | None:
    """KV-cache blocks of one ``generate`` job of ``model`` (gpu_fit's KV tokens / block size);
    None when the job has no prefix cache (transformers backend, prefix caching off, or a
    model whose KV shape is unknown)."""
    gen = config["generation"]
    if not (model_backend(config, model) == "vllm" or served(config, model)) or not gen.get("enable_prefix_caching"):
        return None
    if served(config, model):  # its server taken for a vLLM engine with this config's settings
        config = {**config, "models": {**config["models"], model: {**config["models"][model], "backend": "vllm"}}}
    row = vllm_row(config, "generate", model, workdir, config_device_memory_gb(config))
    return None if not row.get("kv_tokens") else int(row["kv_tokens"]) // prefix_reuse.BLOCK_TOKENS


def reuse_shares(counts: Mapping[str, "prefix_reuse.ReuseCounts"]) -> dict[str, float]:
    return {name: c.reuse_share for name, c in counts.items()}


def config_reuse_shares(config: Mapping[str, Any], model: str, dataset: str, units: int, workdir: Path
                        ) -> dict[str, float]:
    """Share of prompt tokens per condition served from the prefix cache, replaying the first
    ``planner.reuse_sample_units`` units of a job in shared-prefix order (module docstring)."""
    blocks = cache_blocks(config, model, workdir)
    if blocks is None or units == 0:
        return {}
    gen, planner = config["generation"], config["generation"]["planner"]
    sample = min(units, int(planner["reuse_sample_units"]))
    docs = int(planner.get("docs_per_claim", {}).get(dataset, 1))
    stream = prefix_reuse.config_stream(gen, config["evidence"]["budgets"], int(planner["prompt_tokens_overhead"]),
                                        sample, docs)
    names = {rid: name for rid, name, _ in stream}
    order = sorted(stream, key=lambda item: (prefix_reuse.sort_key(item[2]), item[0]))
    scaled = max(1, int(blocks * sample / units / max(1, int(gen["shards"]))))
    return reuse_shares(prefix_reuse.replay_by_label([segs for _, _, segs in order], [names[rid] for rid, _, _ in order],
                                                scaled))
