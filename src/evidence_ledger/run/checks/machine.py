"""The ``machine`` area: every GPU job fits the GPUs the run grants
(:mod:`evidence_ledger.models.gpu_fit`); a GPU is visible when the run grants GPUs to GPU jobs (no
limit: a note); the devices a workstation run pins GPU jobs to; free disk where ``results/`` is
written against the planner's estimate of what the run writes.

In:  a :class:`~evidence_ledger.run.checks.context.RunContext`, the planned data's bytes and the
     planner's rows (:func:`evidence_ledger.run.checks.plan.planned_rows`).
Out: ``machine`` :class:`~evidence_ledger.run.checks.context.Check` rows.
"""
from __future__ import annotations

import os
import shutil
import subprocess

from .context import FAIL, NOTE, OK, Check, RunContext

NVIDIA_SMI_TIMEOUT_S = 60


def visible_gpus() -> tuple[int, str]:
    """(GPUs this process can use, how that was found): ``CUDA_VISIBLE_DEVICES`` and
    ``nvidia-smi -L``; no torch import."""
    hidden = os.environ.get("CUDA_VISIBLE_DEVICES")
    if hidden is not None and hidden.strip() in ("", "-1"):
        return 0, f"CUDA_VISIBLE_DEVICES={hidden!r} hides every GPU"
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return 0, "no nvidia-smi on PATH"
    try:
        proc = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=NVIDIA_SMI_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as err:
        return 0, f"nvidia-smi -L failed ({err})"
    n = sum(1 for line in proc.stdout.splitlines() if line.startswith("GPU "))
    if hidden:
        n = min(n, len([d for d in hidden.split(",") if d.strip()]))
    return n, f"nvidia-smi lists {n}"


def gpu_job_rules(ctx: RunContext) -> list[str]:
    """The GPU rules the run plans (rule x model kinds of gpu_fit's table)."""
    from ...models.gpu_fit import gpu_fit_rows

    return list(dict.fromkeys(r["rule"] for r in gpu_fit_rows(ctx.config, ctx.run_dir)))


def machine_checks(ctx: RunContext, corpus_bytes: int | None = None,
                   planned: tuple[list[dict], list[str]] | None = None,
                   gpus: tuple[int, str] | None = None) -> list[Check]:
    """GPU fit, a GPU present for GPU jobs, free disk for results/."""
    from ...models.gpu_fit import checks_gpu_fit, config_device_memory_gb, gpu_fit_errors

    out = []
    memory = config_device_memory_gb(ctx.config)
    if checks_gpu_fit(ctx.config):
        errors = gpu_fit_errors(ctx.config, ctx.gpus_granted, memory, ctx.run_dir)
        out += [Check("machine", FAIL, f"GPU fit: {e}") for e in errors]
        if not errors:
            out.append(Check("machine", OK, f"GPU fit: every GPU job fits one GPU of {memory:g} GB (device_memory_gb)"
                             + ("" if ctx.gpus_granted is None else f" and the {ctx.gpus_granted} the run grants")))
        rules = gpu_job_rules(ctx)
        n, how = gpus if gpus is not None else visible_gpus()
        if n == 0 and rules and ctx.gpus_granted:
            out.append(Check("machine", FAIL, f"the run grants {ctx.gpus_granted} GPU(s) (--resources gpu="
                                              f"{ctx.gpus_granted}) to its GPU jobs ({', '.join(rules)}) but none is "
                                              f"visible here ({how}); run on the GPU machine, submit through SLURM "
                                              f"(--profile workflow/profiles/slurm), or ask for CPU: --config gpu_jobs=cpu"))
        elif n == 0 and rules:
            out.append(Check("machine", NOTE, f"no GPU visible here ({how}): the GPU jobs ({', '.join(rules)}) must "
                                              f"run where the executor places them (SLURM: the GPU partition)"))
        elif rules:
            out.append(Check("machine", OK, f"GPUs visible here: {n} ({how})"))
    else:
        out.append(Check("machine", OK, "GPU: none asked for (gpu_jobs: cpu or generation.backend: transformers)"))
    out += gpu_pool_checks(ctx)
    out.append(disk_check(ctx, corpus_bytes, planned))
    return out


def gpu_pool_checks(ctx: RunContext) -> list[Check]:
    """The devices a workstation run pins its GPU jobs to (:mod:`evidence_ledger.run.gpu_slots`): no
    more granted (``--resources gpu``) than ``CUDA_VISIBLE_DEVICES`` lists, where it is set."""
    from ..gpu_slots import GpuPoolError, device_pool

    try:
        pool = device_pool(os.environ.get("CUDA_VISIBLE_DEVICES"), ctx.gpus_granted)
    except GpuPoolError as err:
        return [Check("machine", FAIL, str(err))]
    if pool is None:
        return []
    return [Check("machine", OK, f"GPU jobs pinned to devices {','.join(pool)}, one job per device slot")]


def disk_check(ctx: RunContext, corpus_bytes: int | None, planned: tuple[list[dict], list[str]] | None) -> Check:
    from ...generation import planner

    results = ctx.run_dir / "results"
    probe = results
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    rows, uncounted = planned if planned is not None else ([], [])
    verifier_params = _verifier_params(ctx)
    need = planner.written_bytes_estimate(ctx.config, rows, corpus_bytes or 0, verifier_params)
    text = (f"disk: {_gb(free)} free at {probe} for results/; the run writes at most about {_gb(need)} "
            f"(planner estimate: corpus tables and index, prompts and answers, verifier checkpoints)")
    if uncounted:
        text += f"; not counted in it: {'; '.join(uncounted)}"
    if free < need:
        return Check("machine", FAIL, text + "; free space or run in a directory (--directory) on a larger disk")
    return Check("machine", OK, text)


def _verifier_params(ctx: RunContext) -> int | None:
    from ...models.gpu_fit import model_facts

    verifier = ctx.config.get("verifier") or {}
    if not (ctx.config.get("studies") or {}).get("study1") or verifier.get("demo_model"):
        return None
    return model_facts((verifier.get("base_model") or {}).get("hub_id"), None, ctx.run_dir).params


def _gb(n: float) -> str:
    return f"{n / 1e9:,.1f} GB"
