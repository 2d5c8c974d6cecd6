"""The ``plan`` area: the longest planned Study 2 prompt plus ``generation.max_new_tokens`` fits
``generation.vllm.max_model_len`` of every ``generate`` model (vLLM refuses a longer one only
when the job sends it), and so do the WikiContradict and DiffGR prompts whose inputs are already
ingested (:mod:`.conflict_prompts`); the planner's rows, for the disk estimate.

In:  a :class:`~evidence_ledger.run.checks.context.RunContext`.
Out: ``plan`` :class:`~evidence_ledger.run.checks.context.Check` rows; :func:`planned_rows`.
"""
from __future__ import annotations

from .context import FAIL, OK, Check, RunContext


def planned_rows(ctx: RunContext) -> tuple[list[dict], list[str]]:
    """The planner's config-basis rows (no prefix-cache replay), for the disk estimate, and why
    a model x dataset could not be counted (:class:`~evidence_ledger.generation.plan_results.PlannerError`:
    e.g. a population known only after ingest), said in the disk line."""
    from ...generation.plan_config import plan_from_config
    from ...generation.plan_results import PlannerError

    config = ctx.config
    if not (config.get("studies") or {}).get("study2"):
        return [], []
    gen = config["generation"]
    rows, uncounted = [], []
    for model in gen["models"]:
        for dataset in gen["datasets"]:
            try:
                rows += plan_from_config(config, dataset, model, ctx.run_dir, ctx.data_root(), reuse=False)
            except PlannerError as err:
                uncounted.append(str(err).removeprefix("planner: "))
    return rows, list(dict.fromkeys(uncounted))


def plan_checks(ctx: RunContext) -> list[Check]:
    """The longest planned Study 2 prompt + output tokens against each generate model's max_model_len."""
    from ...generation import planner
    from ...generation.prompt_fit import context_limit

    config = ctx.config
    gen = config.get("generation") or {}
    if not (config.get("studies") or {}).get("study2") or gen.get("backend") != "vllm":
        return []
    longest = planner.longest_prompt_tokens(config) + int(gen["max_new_tokens"])
    out = []
    for model in gen["models"]:
        limit, key = context_limit((gen.get("vllm") or {}).get("max_model_len"), model, config["models"][model],
                                   ctx.run_dir)
        if not limit:
            continue
        bound = (f"the longest planned prompt ({planner.longest_prompt_tokens(config):,} tokens: "
                 f"generation.planner.prompt_tokens_overhead + the largest evidence budget) + "
                 f"generation.max_new_tokens {gen['max_new_tokens']} = {longest:,} tokens")
        if longest > int(limit):
            out.append(Check("plan", FAIL, f"generate, models.{model}: {bound} exceed {key} = {int(limit):,} "
                                           f"({ctx.origin('generation.vllm.max_model_len')}); vLLM would refuse those "
                                           f"prompts only when the job sends them: raise {key} or lower evidence.budgets"))
        else:
            out.append(Check("plan", OK, f"generate, models.{model}: {bound} fit {key} = {int(limit):,}"))
    return out


def conflict_prompt_checks(ctx: RunContext) -> list[Check]:
    """The WikiContradict and DiffGR prompts against their vLLM models' context, where their inputs
    are already ingested (:func:`.conflict_prompts.conflict_prompt_lines`)."""
    from .conflict_prompts import conflict_prompt_lines

    return [Check("plan", status, text) for status, text in conflict_prompt_lines(ctx.config, ctx.run_dir)]
