"""The planner's rows as the text table ``python -m evidence_ledger plan`` prints and as report rows.

In:  the planner's rows (:func:`evidence_ledger.generation.planner.plan`) and the config's
     ``generation.planner`` settings (the assumptions line).
Out: the text table with its stage and total lines; the report table's rows in hours
     (:data:`PLAN_COLUMNS`), with one ``all`` row per stage and a total.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence


def _stage(condition: str) -> str:
    return {"primary": "primary", "model_load": "model loads"}.get(condition, "controls")


def format_plan(rows: list[dict], planner: Mapping[str, Any] | None = None) -> str:
    """The request table, GPU hours per stage beside their compute floor, the assumptions, and
    the total line (``total: N requests (C control requests after reuse, ...) ... estimated H
    GPU hours``)."""
    head = (f"{'model':<10} {'dataset':<9} {'condition':<24} {'basis':<8} {'requests':>10} {'prompt_tokens':>14} "
            f"{'reused':>7} {'output_tok':>11} {'gpu_h':>7} {'floor_h':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        share = r.get("reused_tokens", 0) / r["prompt_tokens"] if r["prompt_tokens"] else 0.0
        lines.append(f"{r['model']:<10} {r['dataset']:<9} {r['condition']:<24} {r['basis']:<8} "
                     f"{r['requests']:>10,} {r['prompt_tokens']:>14,} {share:>7.1%} {r.get('output_tokens', 0):>11,} "
                     f"{r['gpu_seconds'] / 3600:>7.2f} {r.get('floor_seconds', 0) / 3600:>7.2f}")
    lines.append("-" * len(head))
    for stage in ("primary", "controls", "model loads"):
        part = [r for r in rows if _stage(r["condition"]) == stage]
        if not part:
            continue
        if stage == "model loads":
            lines.append(f"Study 2 model loads: one engine start per generate job ({len(part)} model x dataset "
                         f"rows; a served model: one server start): about "
                         f"{sum(r['gpu_seconds'] for r in part) / 3600:.2f} GPU hours")
            continue
        pt = sum(r["prompt_tokens"] for r in part)
        reused = sum(r.get("reused_tokens", 0) for r in part)
        lines.append(f"Study 2 {stage}: {sum(r['requests'] for r in part):,} requests, {pt:,} prompt tokens "
                     f"({reused / pt if pt else 0:.1%} from the prefix cache), "
                     f"{sum(r.get('output_tokens', 0) for r in part):,} output tokens: about "
                     f"{sum(r['gpu_seconds'] for r in part) / 3600:.2f} GPU hours "
                     f"(compute floor {sum(r.get('floor_seconds', 0) for r in part) / 3600:.2f})")
    if planner:
        lines.append(f"assumed: prefill at {float(planner['prefill_utilisation']):.0%} of "
                     f"{float(planner['peak_flops']) / 1e12:,.0f} TFLOP/s (2 x parameters FLOP per token), decode "
                     f"{float(planner['output_tokens_per_s']):,.0f} tokens/s, {float(planner['model_load_s']):.0f} s "
                     f"per model load (config generation.planner)")
    tot_r = sum(r["requests"] for r in rows)
    tot_t = sum(r["prompt_tokens"] for r in rows)
    tot_s = sum(r["gpu_seconds"] for r in rows)
    tot_f = sum(r.get("floor_seconds", 0) for r in rows)
    ctl = sum(r["requests"] for r in rows if _stage(r["condition"]) == "controls")
    exact = all(r.get("exact") for r in rows)
    lines.append(f"total: {tot_r:,} requests ({ctl:,} control requests after reuse, "
                 f"{'exact' if exact else 'upper bound: some datasets counted from the config'}), {tot_t:,} prompt "
                 f"tokens, estimated {tot_s / 3600:.2f} GPU hours (compute floor {tot_f / 3600:.2f})")
    return "\n".join(lines)


PLAN_COLUMNS = ["model", "dataset", "condition", "basis", "exact", "requests", "prompt_tokens", "reused_tokens",
                "computed_tokens", "output_tokens", "gpu_hours", "floor_hours"]


def plan_report_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The planner's rows in hours, then one ``all`` row per stage (primary, controls, model
    loads) and a ``total`` row: the figures ``python -m evidence_ledger plan`` prints."""
    def as_row(r, model, dataset, condition):
        return {"model": model, "dataset": dataset, "condition": condition, "basis": r.get("basis", ""),
                "exact": bool(r.get("exact", False)), "requests": int(r["requests"]),
                "prompt_tokens": int(r["prompt_tokens"]), "reused_tokens": int(r.get("reused_tokens", 0)),
                "computed_tokens": int(r.get("computed_tokens", 0)), "output_tokens": int(r.get("output_tokens", 0)),
                "gpu_hours": r["gpu_seconds"] / 3600, "floor_hours": r.get("floor_seconds", 0) / 3600}

    out = [as_row(r, r["model"], r["dataset"], r["condition"]) for r in rows]
    keys = ("requests", "prompt_tokens", "reused_tokens", "computed_tokens", "output_tokens", "gpu_seconds",
            "floor_seconds")
    stages = {"primary": lambda c: c == "primary", "model_loads": lambda c: c == "model_load",
              "controls": lambda c: c not in ("primary", "model_load"), "total": lambda c: True}
    for stage, member in stages.items():
        part = [r for r in rows if member(r["condition"])]
        summed = {k: sum(r.get(k, 0) for r in part) for k in keys}
        summed.update(basis="", exact=all(r.get("exact") for r in part))
        out.append(as_row(summed, "all", "all", stage))
    return out
