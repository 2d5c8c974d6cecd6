"""One job of the workflow, as Snakemake would run it, for ``python -m evidence_ledger call --rule``.

In:  a rule name, its wildcard values, the Snakefile, the working directory and the run's config
(``--configfile`` files and ``--config`` values, as on Snakemake's command line; none = the
embedded demo). Out: the stage function the rule's job calls, and its keyword arguments for
that job.

How: Snakemake's Python API (``snakemake.api.SnakemakeApi``) builds the DAG for the rule's
output files with those wildcards, the same way ``snakemake TARGET`` does; the job of the rule
in that DAG gives the expanded ``input``, ``output`` and ``params`` (as PyPSA-Eur's
``mock_snakemake`` gives a script its ``snakemake`` object), and the job's own adapter,
:func:`evidence_ledger.jobs.stage_job.job_keywords` (docs/LAYOUT.md, "The calling convention"),
turns them into the keywords, so the stage function can be called in this process with exactly
what the workflow would pass, logging to stderr rather than the rule log.
"""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from ..errors import did_you_mean
from .stage_job import job_keywords, stage_function


@dataclass(frozen=True)
class JobCall:
    """The stage function a rule's job calls and the keyword arguments it passes."""

    function: str
    kwargs: dict[str, Any]
    outputs: tuple[str, ...]


def parse_wildcards(pairs: Sequence[str]) -> dict[str, str]:
    """``["dataset=fever", ...]`` -> ``{"dataset": "fever"}``; values stay strings (they are wildcards)."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"expected wildcard=value, got {pair!r}")
        out[key] = value
    return out


def plain(value: Any) -> Any:
    """Snakemake's containers and path objects -> lists, dicts and strings (for printing and calling)."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


@contextmanager
def workflow_dag(snakefile: Path, workdir: Path, configfiles: Sequence[Path], config: Mapping[str, Any],
                 targets: Sequence[str] = (), config_args: Sequence[str] | None = None) -> Iterator[Any]:
    """Snakemake's workflow object with the DAG built for ``targets`` (none: only parsed);
    ``config_args``: the ``--config`` entries as typed on the command line, which the workflow
    reads and types itself (evidence_ledger.config.layers)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    here = os.getcwd()
    try:
        with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
            workflow_api = api.workflow(
                resource_settings=ResourceSettings(cores=1),
                config_settings=ConfigSettings(configfiles=[Path(f).absolute() for f in configfiles],
                                               config=dict(config),
                                               config_args=None if config_args is None else list(config_args)),
                snakefile=Path(snakefile).absolute(),
                workdir=Path(workdir).absolute(),
            )
            workflow = workflow_api._workflow
            if targets:
                workflow_api.dag(DAGSettings(targets=frozenset(targets)))
                workflow._prepare_dag(forceall=False, ignore_incomplete=True, lock_warn_only=True, nolock=True)
                workflow._build_dag()
            yield workflow
    finally:
        os.chdir(here)


def find_job(workflow, rule_name: str, wildcards: Mapping[str, str]):
    """The job of ``rule_name`` with exactly ``wildcards`` in the workflow's built DAG."""
    jobs = [job for job in workflow.dag.jobs if job.rule.name == rule_name
            and {k: str(v) for k, v in job.wildcards_dict.items()} == dict(wildcards)]
    if not jobs:
        raise LookupError(f"no job of rule {rule_name} with wildcards {dict(wildcards)} in the DAG")
    return jobs[0]


def wildcard_value_errors(rule, wildcards: Mapping[str, str]) -> list[str]:
    """One line per wildcard value that the constraint of ``rule``'s outputs refuses (Snakemake
    would find no rule to produce the file): the wildcard, the value and, for a constraint that
    lists its values (``fever|feverous|scifact``), those values with the closest one."""
    constraints: dict[str, str] = {}
    for pattern in rule.output:
        constraints.update(pattern.wildcard_constraints())
    out = []
    for name, value in wildcards.items():
        regex = getattr(constraints.get(name), "pattern", constraints.get(name))  # Snakemake compiles some
        if regex is None or re.fullmatch(regex, value):
            continue
        words = regex.split("|")
        if all(re.fullmatch(r"[\w.-]+", w) for w in words):
            out.append(f"wildcard {name}={value!r} is not one of {', '.join(words)}{did_you_mean(value, words)}")
        else:
            out.append(f"wildcard {name}={value!r} does not match the rule's constraint {regex!r}")
    return out


def target_files(workflow, rule_name: str, wildcards: Mapping[str, str]) -> list[str]:
    """The output files of ``rule_name`` for ``wildcards`` (all wildcard names must be given, each
    value one its constraint allows: :func:`wildcard_value_errors`)."""
    rule = workflow.get_rule(rule_name)
    names = set(rule.wildcard_names)
    if set(wildcards) != names:
        raise ValueError(f"rule {rule_name} has wildcards {sorted(names)}; given {sorted(wildcards)}")
    refused = wildcard_value_errors(rule, wildcards)
    if refused:
        raise ValueError("; ".join(refused))
    output, _ = rule.expand_output(dict(wildcards))
    return [str(f) for f in output]


def rule_job_call(rule_name: str, wildcards: Mapping[str, str], *, snakefile: Path, workdir: Path,
                  configfiles: Sequence[Path] = (), config: Mapping[str, Any] | None = None,
                  config_args: Sequence[str] | None = None) -> JobCall:
    """The stage call of ``rule_name``'s job with ``wildcards`` for the given run: the function's
    name, its keyword arguments (plain values, paths relative to ``workdir``) and the job's outputs.
    ``config_args``: the raw ``--config`` entries (else ``config``'s values, quoted as Snakemake
    quotes them)."""
    config = dict(config or {})
    with workflow_dag(snakefile, workdir, configfiles, config, config_args=config_args) as parsed:
        targets = target_files(parsed, rule_name, wildcards)
    with workflow_dag(snakefile, workdir, configfiles, config, targets=targets, config_args=config_args) as workflow:
        job = find_job(workflow, rule_name, wildcards)
        function = stage_function(rule_name)
        kwargs = job_keywords(function, rule_name, job.input, job.output, job.params)
        return JobCall(function.__name__, plain(kwargs), tuple(str(f) for f in job.output))
