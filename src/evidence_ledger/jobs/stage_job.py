"""A rule's job calls its stage function: the one adapter between Snakemake and the library.

In:  a rule's name and its job's named ``input``, ``output`` and ``params`` (Snakemake's
     containers, or plain mappings).
Out: the stage function the rule calls (:func:`stage_function`) and its keyword arguments
     (:func:`job_keywords`); :func:`run_rule_job` is what every rule's ``script:``
     (``scripts/call_stage.py``) runs: the job's log file, its GPUs, then the call.

The convention (docs/LAYOUT.md, "The calling convention"): every rule ``R`` calls the
keyword-only function ``evidence_ledger.<package>.stage.R`` (the ingest rules made once per
registered benchmark share :data:`SHARED_FUNCTIONS`), and each named input, output and param of
the rule is the keyword of the same name: a file is passed as a path string, a list of files as
a list of path strings, a param as the value the rule computes. A keyword with a default may be
left out (an optional input such as the paper's reference values), and an input without a name
is only waited for (a locally built model that a param names). Anything else that does not
match, a rule entry the function does not take, a keyword no entry fills, a name used twice or
an output or param without a name, stops the job naming the rule, the function and the name,
before the function runs.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Any, Callable, Mapping

import evidence_ledger

# Rules the workflow makes once per registered benchmark (workflow/rules/ingest.smk), by name
# prefix, and the one stage function they share.
SHARED_FUNCTIONS = {"ingest_": "ingest_claim_benchmark"}
SECTIONS = ("input", "output", "params")


class RuleMismatch(TypeError):
    """A rule's named entries and its stage function's keywords do not match (a workflow bug)."""


def stage_functions() -> dict[str, Callable]:
    """``{function name: function}`` for every public function of every ``evidence_ledger.<pkg>.stage`` module."""
    found = {}
    for info in pkgutil.iter_modules(evidence_ledger.__path__):
        if not info.ispkg:
            continue
        try:
            module = importlib.import_module(f"evidence_ledger.{info.name}.stage")
        except ModuleNotFoundError as exc:
            if exc.name == f"evidence_ledger.{info.name}.stage":
                continue
            raise
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ == module.__name__ and not name.startswith("_"):
                found[name] = fn
    return found


def stage_function_name(rule: str, names) -> str | None:
    """The name of the stage function ``rule`` calls among ``names``: the rule's own name, else the
    function its name prefix shares (:data:`SHARED_FUNCTIONS`); None when there is none."""
    if rule in names:
        return rule
    for prefix, function in SHARED_FUNCTIONS.items():
        if rule.startswith(prefix) and function in names:
            return function
    return None


def stage_function_modules() -> dict[str, str]:
    """``{function name: module}`` of the public functions of every ``evidence_ledger.<pkg>.stage``
    module, read from their source, so that a job imports only its own stage module (and its
    libraries: an ingest job never loads torch)."""
    found = {}
    for info in pkgutil.iter_modules(evidence_ledger.__path__):
        source = Path(evidence_ledger.__path__[0]) / info.name / "stage.py"
        if info.ispkg and source.is_file():
            for node in ast.parse(source.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                    found[node.name] = f"evidence_ledger.{info.name}.stage"
    return found


def stage_function(rule: str) -> Callable:
    """The stage function of ``rule`` (:func:`stage_function_name`); LookupError when there is none."""
    modules = stage_function_modules()
    name = stage_function_name(rule, modules)
    if name is None:
        raise LookupError(f"rule {rule} has no stage function (a function {rule} in an evidence_ledger.<package>.stage "
                          f"module)")
    return getattr(importlib.import_module(modules[name]), name)


def entry_value(value: Any) -> Any:
    """A named file entry as the function takes it: a list of files as a list of path strings, one
    file as a path string (Snakemake's file objects are ``str`` subclasses)."""
    if isinstance(value, (list, tuple)):
        return [str(item) for item in value]
    return str(value)


def named_entries(container: Any, section: str, rule: str) -> dict[str, Any]:
    """``{name: value}`` of a Snakemake container (``input``, ``output``: files, see
    :func:`entry_value`; ``params``: values as they are) or of a plain mapping. An input without a
    name is a file the job needs made first but does not read by that name (a model directory a
    param names); an output or param without one is refused: the function could not tell what it is."""
    if isinstance(container, Mapping):
        items = dict(container)
        counted = len(items)
    else:
        items = {name: getattr(container, name) for name in container.keys()}
        counted = sum(len(v) if section != "params" and isinstance(v, list) else 1 for v in items.values())
        if counted != len(container) and section != "input":
            raise RuleMismatch(f"rule {rule}: every {section} entry needs a name (the stage function takes keywords); "
                               f"{len(container) - counted} of {len(container)} have none")
    if section == "params":
        return items
    return {name: entry_value(value) for name, value in items.items()}


def job_keywords(function: Callable, rule: str, input: Any, output: Any, params: Any) -> dict[str, Any]:
    """The keyword arguments of ``function`` for one job of ``rule``: every named entry of the
    job's ``input``, ``output`` and ``params`` under its own name (module docstring)."""
    found: dict[str, Any] = {}
    where: dict[str, str] = {}
    for section, container in zip(SECTIONS, (input, output, params)):
        for name, value in named_entries(container, section, rule).items():
            if name in found:
                raise RuleMismatch(f"rule {rule}: {name!r} is both a named {where[name]} and a named {section}; "
                                   f"{function.__name__} takes it once")
            found[name], where[name] = value, section
    signature = inspect.signature(function)
    keywords = signature.parameters
    unknown = [f"{where[name]} {name!r}" for name in found if name not in keywords]
    missing = [name for name, p in keywords.items() if p.default is inspect.Parameter.empty and name not in found]
    if unknown or missing:
        raise RuleMismatch(f"rule {rule} and {function.__module__}.{function.__name__} do not match: "
                           + "; ".join(([f"the rule passes {', '.join(unknown)} that the function does not take"]
                                        if unknown else [])
                                       + ([f"no named input, output or param gives {missing}"] if missing else [])))
    return found


def run_rule_job(snakemake) -> None:
    """What a rule's job runs (``scripts/call_stage.py``): logging to the rule's ``log:`` file
    (:func:`evidence_ledger.jobs.rule_log.log_to_rule_log`), then, for a rule that declares GPUs,
    the job's own devices on a workstation (:func:`evidence_ledger.run.gpu_slots.pin_job_gpus`,
    before anything starts CUDA), then the stage function with the job's keywords."""
    from ..run.gpu_slots import pin_job_gpus
    from .rule_log import log_to_rule_log

    log_to_rule_log(snakemake.log[0])
    gpus = snakemake.resources.get("gpu", 0) if "gpu" in snakemake.resources.keys() else 0
    pin_job_gpus(gpus)  # workstation: devices of its own; SLURM, or no GPU: left as it is
    function = stage_function(snakemake.rule)
    function(**job_keywords(function, snakemake.rule, snakemake.input, snakemake.output, snakemake.params))

