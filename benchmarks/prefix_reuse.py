"""Prefix-cache reuse of the paper config's Study 2 request stream, before and after grouping
(writes benchmarks/results/prefix_reuse.{json,md}).

A measured proxy on CPU for what vLLM's prefix cache saves on the GPU. For every Study 2
generate job of the config (model x dataset), the job's request stream is built from the
config as the planner builds it (``generation.prefix_reuse.config_stream``: every condition
of ``generation.requests.enumerate_conditions`` for every unit of the planner's population,
evidence of the budget's tokens, the short budget a prefix of the long one, template + claim
= ``planner.prompt_tokens_overhead`` tokens) and replayed, a request at a time, through the
block-level LRU prefix-cache model (``generation.prefix_reuse.replay``: 16-token blocks, a
hash chain over the prefix) sized like the KV cache vLLM leaves on one H200 for that model
(``gpu_fit.vllm_row``: device memory x ``gpu_memory_utilization`` - weights - overhead, over
the model's KV bytes per token). Two orders of the same requests:

* before - the order as coded before grouping: ``shards: 4`` jobs by request-id hash, each
  sending its requests sorted by request id (every shard with its own engine and cache);
* after - one job per model x dataset (``shards: 1``), requests in shared-prefix order
  (``generation.requests.prefix_order``; here ``prefix_reuse.grouped_order``).

Reported per job and in total: prompt tokens, the share served from cache, and the prompt
tokens that must be computed. Target: >= 85% of the paper stream's prompt tokens reused.
Token counts are the planner's upper bounds (budgets, not the evidence's real lengths), so
the shares are of that stream; no GPU ran.

Run:  .venv/bin/python benchmarks/prefix_reuse.py [--configfile config/paper.yaml]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from evidence_ledger.config.layers import layered_config, repo_root
from evidence_ledger.generation import prefix_reuse as pr
from evidence_ledger.generation.plan_config import cache_blocks
from evidence_ledger.generation.plan_results import population

RESULTS = Path(__file__).resolve().parent / "results"
BEFORE_SHARDS = 4  # generation.shards of the paper config before grouping


def job_stream(config: dict, dataset: str, workdir: Path) -> list[tuple[str, pr.Segments]]:
    """(request id, segments) of every distinct request of one model x dataset job."""
    gen, planner = config["generation"], config["generation"]["planner"]
    n_claims, _ = population(config, dataset, workdir)
    docs = int(planner.get("docs_per_claim", {}).get(dataset, 1))
    stream = pr.config_stream(gen, config["evidence"]["budgets"], int(planner["prompt_tokens_overhead"]),
                              n_claims * docs, docs)
    return [(rid, segs) for rid, _, segs in stream]


def measure(config: dict, workdir: Path) -> list[dict]:
    rows = []
    gen = config["generation"]
    for model in gen["models"]:
        blocks = cache_blocks({**config, "generation": {**gen, "backend": "vllm", "enable_prefix_caching": True}},
                              model, workdir)
        for dataset in gen["datasets"]:
            start = time.perf_counter()
            stream = job_stream(config, dataset, workdir)
            before = pr.total(pr.replay(shard, blocks) for shard in pr.hash_order(stream, BEFORE_SHARDS))
            after = pr.replay(pr.grouped_order(stream), blocks)
            rows.append({"model": model, "dataset": dataset, "requests": after.requests,
                         "cache_blocks": blocks, "prompt_tokens": after.prompt_tokens,
                         "before_reused_tokens": before.reused_tokens, "before_share": round(before.reuse_share, 4),
                         "before_computed_tokens": before.computed_tokens,
                         "after_reused_tokens": after.reused_tokens, "after_share": round(after.reuse_share, 4),
                         "after_computed_tokens": after.computed_tokens,
                         "replay_seconds": round(time.perf_counter() - start, 1)})
            print(f"{model} {dataset}: {after.requests:,} requests, reuse {before.reuse_share:.1%} -> "
                  f"{after.reuse_share:.1%}", flush=True)
    return rows


def totals(rows: list[dict]) -> dict:
    pt = sum(r["prompt_tokens"] for r in rows)
    before = sum(r["before_reused_tokens"] for r in rows)
    after = sum(r["after_reused_tokens"] for r in rows)
    return {"requests": sum(r["requests"] for r in rows), "prompt_tokens": pt,
            "before_share": round(before / pt, 4), "before_computed_tokens": pt - before,
            "after_share": round(after / pt, 4), "after_computed_tokens": pt - after}


def markdown(rows: list[dict], total: dict, configfiles: list[str]) -> str:
    lines = [f"# Prefix-cache reuse of the Study 2 request stream ({', '.join(configfiles)})", "",
             "Block-level LRU replay (16-token blocks) sized like one H200's KV cache per model; "
             f"before = {BEFORE_SHARDS} shards by request-id hash in id order, after = one job per model x "
             "dataset in shared-prefix order. Written by `benchmarks/prefix_reuse.py` (no GPU).", "",
             "| model | dataset | requests | prompt tokens | reused before | reused after | computed before | computed after |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['dataset']} | {r['requests']:,} | {r['prompt_tokens']:,} | "
                     f"{r['before_share']:.1%} | {r['after_share']:.1%} | {r['before_computed_tokens']:,} | "
                     f"{r['after_computed_tokens']:,} |")
    lines.append(f"| **total** | | {total['requests']:,} | {total['prompt_tokens']:,} | {total['before_share']:.1%} | "
                 f"{total['after_share']:.1%} | {total['before_computed_tokens']:,} | {total['after_computed_tokens']:,} |")
    lines += ["", f"Target: >= 85% of prompt tokens reused on the paper stream: "
              f"{'met' if total['after_share'] >= 0.85 else 'NOT met'} ({total['after_share']:.1%})."]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", nargs="+", default=["config/paper.yaml"])
    parser.add_argument("--workdir", default="/nonexistent-workdir",
                        help="directory whose results/ give population sizes (default: none, the config's)")
    parser.add_argument("--out", default=str(RESULTS / "prefix_reuse"))
    args = parser.parse_args()
    config = layered_config(repo_root(), args.configfile)
    rows = measure(config, Path(args.workdir))
    total = totals(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"configfiles": args.configfile, "before_shards": BEFORE_SHARDS,
                                                    "block_tokens": pr.BLOCK_TOKENS, "jobs": rows, "total": total},
                                                   indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(rows, total, args.configfile))
    print(markdown(rows, total, args.configfile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
