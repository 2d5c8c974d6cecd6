"""The ``config`` area: the schema (each refused value one line: key, value, the file and line or
``--config`` it came from, what is expected; :func:`evidence_ledger.run.config_checks.schema_errors`),
plugins and benchmark names, and the cross-key checks (``config_checks.config_errors``).

In:  a :class:`~evidence_ledger.run.checks.context.RunContext`.
Out: ``config`` :class:`~evidence_ledger.run.checks.context.Check` rows; :func:`check_config_or_refuse`
     raises them as one :class:`~evidence_ledger.run.config_checks.ConfigRefused` (``plan``, ``call``).
"""
from __future__ import annotations

import os
from typing import Any, Mapping

from ..config_checks import ConfigRefused, config_errors, schema_errors
from ...config.layers import config_value
from .context import FAIL, OK, Check, RunContext


def config_checks(ctx: RunContext, need_data_root: bool = True) -> list[Check]:
    """The schema, the plugins and benchmark names, and the cross-key checks."""
    from ...benchmark_registry import check_config_benchmarks, load_plugins

    layers = " + ".join(ctx.run.layers)
    out = empty_layer_checks(ctx)
    errors = schema_errors(ctx.config, ctx.schema, ctx.origin)
    if errors:
        return out + [Check("config", FAIL, e) for e in errors]
    try:
        load_plugins(ctx.config.get("benchmark_plugins") or [])
        check_config_benchmarks(ctx.config, ctx.schema["properties"]["data"]["properties"])
    except ValueError as err:
        return out + [Check("config", FAIL, f"{str(err).removeprefix('config: ')} ({ctx.origin('benchmark_plugins')})")]
    problems = config_errors(ctx.config) + generation_backend_errors(ctx.config)
    if not need_data_root:
        problems = [p for p in problems if not p.startswith("data_root is not set")]
    out += [Check("config", FAIL, with_origins(p, ctx)) for p in problems]
    if not out:
        out.append(Check("config", OK, f"schema and cross-key checks pass: {layers}"))
    return out


def empty_layer_checks(ctx: RunContext) -> list[Check]:
    """A ``--configfile`` that holds no YAML document (empty, or only comments): Snakemake refuses
    it ("Config file must be given as JSON or YAML with keys at top level", naming no file), so
    ``check`` names it first."""
    return [Check("config", FAIL, f"{name}: the config file is empty (or holds only comments), which Snakemake "
                                  f"refuses as a --configfile without naming the file; write {{}} in it for a layer "
                                  f"that sets nothing, or leave it out") for name in ctx.run.empty_layers]


def generation_backend_errors(config: Mapping[str, Any]) -> list[str]:
    """Every generating model's backend is known (built in, ``generation.backend_plugins`` or an
    installed entry point); a served model names its server and the API-key variable it names is
    set in this environment, which the jobs inherit."""
    from ...generation.backends.base import backend_errors
    from ...models.gpu_fit import generation_jobs

    defined = config.get("models") or {}
    models = [m for _, m in generation_jobs(config) if m in defined]
    return list(dict.fromkeys(backend_errors(config, models, os.environ)))  # generation.backend: once, not per model


def with_origins(message: str, ctx: RunContext) -> str:
    """``message`` followed by where each config key it names was set (``[key: FILE:LINE; ...]``)."""
    import re

    keys = []
    for token in re.findall(r"\b[a-z_][a-z0-9_]*(?:\.[A-Za-z0-9_-]+)+\b", message):
        if config_value(ctx.config, token, _MISSING) is not _MISSING and token not in keys:
            keys.append(token)
    if not keys:
        return message
    return f"{message} [{'; '.join(f'{k}: {ctx.origin(k)}' for k in keys)}]"


_MISSING = object()


def check_config_or_refuse(ctx: RunContext, need_data_root: bool = True) -> None:
    """Raise :class:`ConfigRefused` with one line per config problem (``plan`` and ``call``)."""
    failed = [c.text for c in config_checks(ctx, need_data_root) if c.failed]
    if failed:
        raise ConfigRefused("config: " + ("\n  " if len(failed) > 1 else "") + "\n  ".join(failed))

