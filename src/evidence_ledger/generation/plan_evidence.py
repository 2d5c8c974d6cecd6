"""Evidence-mode counting: the real de-duplicated requests and their prompt tokens.

In:  the run's config, a dataset and a model, the run directory, and its evidence table and sample.
Out: the planner's ``evidence``-basis rows (exact; :mod:`.planner` says how they are counted),
     with the share of prompt tokens the prefix cache serves, replayed over the real prompts;
     None where the evidence was not built for this config.
"""
from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Mapping

from . import prefix_reuse
from .plan_config import cache_blocks, reuse_shares
from .plan_results import evidence_mismatch
from .plan_tokens import prompt_token_counter
from .requests import condition_name, enumerate_conditions, plan_requests, prefix_order


def plan_from_evidence(config: Mapping[str, Any], dataset: str, model: str, workdir: Path,
                       evidence_path: Path) -> list[dict] | None:
    """Exact de-duplicated counts from the evidence table and the sample it was built for (see
    module docstring); None when the evidence was not built for this config
    (:func:`evidence_mismatch`)."""
    from ..tables import read_table
    from ..tables.evidence import EVIDENCE

    import pyarrow.parquet as pq

    gen = config["generation"]
    sample = workdir / "results" / "sampling" / dataset / "sample.parquet"
    evidence = read_table(evidence_path, EVIDENCE).to_pylist()
    claims = pq.read_table(sample).to_pylist()
    if evidence_mismatch(config, dataset, evidence, {str(c["claim_id"]) for c in claims}) is not None:
        return None
    table, _ = plan_requests(model, dataset, claims, evidence, gen, str(evidence_path))
    count_tokens = prompt_token_counter(config, model, workdir)
    order = [condition_name(c) for c in enumerate_conditions(gen)]
    out: OrderedDict[str, dict] = OrderedDict((k, {"requests": 0, "prompt_tokens": 0}) for k in dict.fromkeys(order))
    seen: set[str] = set()
    rows = table.select(["request_id", "condition", "code_mapping", "messages"]).to_pylist()
    rank = {k: i for i, k in enumerate(out)}

    def name(r):
        if r["condition"] == "primary":
            return "primary"
        if r["condition"] == "code_mapping":
            return f"code_mapping:{r['code_mapping']}"
        return f"control:{r['condition']}"

    for r in sorted(rows, key=lambda r: rank[name(r)]):
        if r["request_id"] in seen:
            continue
        seen.add(r["request_id"])
        d = out[name(r)]
        d["requests"] += 1
        d["prompt_tokens"] += count_tokens(r["messages"])
    shares = evidence_reuse_shares(config, model, rows, name, workdir)
    for k, d in out.items():
        d["reused_tokens"] = int(round(d["prompt_tokens"] * shares.get(k, 0.0)))
    return [{"model": model, "dataset": dataset, "condition": k, "basis": "evidence", "exact": True, **v}
            for k, v in out.items()]


def evidence_reuse_shares(config: Mapping[str, Any], model: str, rows: list[dict], name, workdir: Path
                          ) -> dict[str, float]:
    """Share of prompt tokens per condition served from the prefix cache, replaying the real
    prompts (characters / ``chars_per_token`` per token) in the order the job sends them."""
    blocks = cache_blocks(config, model, workdir)
    if blocks is None or not rows:
        return {}
    cpt = float(config["generation"]["planner"]["chars_per_token"])
    first: dict[str, dict] = {}
    for r in rows:
        first.setdefault(r["request_id"], r)
    ordered = prefix_order(list(first.values()))
    stream = [prefix_reuse.text_segments("\n".join(m["content"] for m in r["messages"]), cpt) for r in ordered]
    return reuse_shares(prefix_reuse.replay_by_label(stream, [name(r) for r in ordered], blocks))
