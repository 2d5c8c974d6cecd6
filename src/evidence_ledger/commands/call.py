"""``python -m evidence_ledger call``: run one rule's stage function outside Snakemake.

``python -m evidence_ledger call RULE key=value ...`` calls the function with the keywords given;
``python -m evidence_ledger call --rule RULE [wildcard=value ...] [--configfile F ...] [--config k=v ...]``
calls it with exactly the inputs, outputs and params the workflow passes to that rule's job with
those wildcards, for that config (none given: the embedded demo), in the working directory
(``--directory``); see :mod:`evidence_ledger.jobs.rule_job` and docs/LAYOUT.md.

Every rule ``R``'s job calls one keyword-only function ``evidence_ledger.<package>.stage.R``
with its named inputs, outputs and params (:mod:`evidence_ledger.jobs.stage_job`). This command
finds that function by the rule's name (in the ``stage`` module of every package) and calls it
with the given keyword arguments, each value parsed as YAML (``k=5`` is an int, ``k=[a, b]`` a
list, ``k=null`` None, anything else a string). Logging goes to stderr.

In:  a rule name and ``key=value`` pairs, or ``--rule`` with a rule name and ``wildcard=value``
pairs. Out: the function's effect (its output files); an exit with a message naming the
missing or unknown keywords, a wildcard value the rule does not allow (with the allowed values),
or the job that is not in the workflow's DAG.
"""
from __future__ import annotations

import argparse
import inspect
import json
import logging
import os
from pathlib import Path

import yaml

from evidence_ledger.errors import ExpectedError
from evidence_ledger.jobs.stage_job import stage_functions


class CallRefused(ExpectedError):
    """A rule, job or keyword that ``call`` cannot run (printed as one line, exit 2)."""


def parse_keyword_arguments(pairs: list[str]) -> dict[str, object]:
    """``["k=v", ...]`` -> ``{k: yaml(v)}``; a pair without ``=`` raises ValueError."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {pair!r}")
        out[key] = yaml.safe_load(value) if value else ""
    return out


def register(subparsers) -> None:
    parser = subparsers.add_parser("call", help="run one rule's stage function outside Snakemake",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rule", help="rule name, e.g. assemble_evidence (see `call --list`)", nargs="?")
    parser.add_argument("arguments", nargs="*", help="key=value keyword arguments of the stage function "
                        "(with --rule: wildcard=value pairs of the job)")
    parser.add_argument("--list", action="store_true", help="list every rule's function and its keywords")
    job = parser.add_argument_group("the workflow's own job (--rule)")
    job.add_argument("--rule", dest="job_rule", metavar="RULE",
                     help="call RULE's function with what the workflow passes to its job with the given wildcards")
    job.add_argument("--configfile", nargs="+", default=[], metavar="FILE",
                     help="config files, as for snakemake (none: the embedded demo)")
    job.add_argument("--config", nargs="+", default=[], metavar="KEY=VALUE",
                     help="config values, as for snakemake --config (typed as YAML, as the workflow types them)")
    job.add_argument("--snakefile", default=None,
                     help="the workflow's Snakefile (default: ./Snakefile, else the one of this repository)")
    job.add_argument("--directory", default=".", help="the run's working directory (default: .)")
    job.add_argument("--print", dest="print_only", action="store_true",
                     help="print the function and its keyword arguments as JSON instead of calling it")
    parser.set_defaults(func=run)


def default_snakefile(directory: str) -> Path:
    """``DIRECTORY/Snakefile`` when there is one, else this repository's Snakefile."""
    local = Path(directory) / "Snakefile"
    return local if local.is_file() else Path(__file__).resolve().parents[3] / "Snakefile"


def call_workflow_job(args, functions: dict[str, object]) -> int:
    """``call --rule``: the rule's job from the workflow's DAG, then its stage function."""
    from snakemake.exceptions import UnknownRuleException

    from evidence_ledger.config.layers import parse_config_entries
    from evidence_ledger.errors import ExpectedError
    from evidence_ledger.jobs.rule_job import parse_wildcards, rule_job_call

    pairs = ([args.rule] if args.rule else []) + list(args.arguments)
    try:
        wildcards = parse_wildcards(pairs)
        config = parse_config_entries(args.config)
        job = rule_job_call(args.job_rule, wildcards, snakefile=Path(args.snakefile or default_snakefile(args.directory)),
                            workdir=Path(args.directory), configfiles=[Path(f) for f in args.configfile],
                            config=config, config_args=list(args.config))
    except ExpectedError:
        raise
    except UnknownRuleException:
        raise CallRefused(f"call --rule {args.job_rule}: the workflow has no rule {args.job_rule!r} "
                          f"(`snakemake --list-rules` lists them)") from None
    except (ValueError, LookupError) as exc:
        raise CallRefused(f"call --rule {args.job_rule}: {exc}") from None
    if args.print_only:
        print(json.dumps({"function": job.function, "kwargs": job.kwargs}, indent=2, default=str))
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    here = Path.cwd()
    os.chdir(args.directory)
    try:
        for output in job.outputs:  # Snakemake creates the output directories before a job runs
            Path(output).parent.mkdir(parents=True, exist_ok=True)
        functions[job.function](**job.kwargs)
    finally:
        os.chdir(here)
    return 0


def run(args) -> int:
    functions = stage_functions()
    if args.job_rule:
        return call_workflow_job(args, functions)
    if args.list or not args.rule:
        for name in sorted(functions):
            params = ", ".join(inspect.signature(functions[name]).parameters)
            print(f"{name}({params})  [{functions[name].__module__}]")
        return 0
    if args.rule not in functions:
        raise CallRefused(f"call: no stage function named {args.rule!r}; `call --list` shows them")
    fn = functions[args.rule]
    try:
        kwargs = parse_keyword_arguments(args.arguments)
    except ValueError as exc:
        raise CallRefused(f"call: {exc}") from None
    signature = inspect.signature(fn)
    unknown = sorted(set(kwargs) - set(signature.parameters))
    missing = sorted(name for name, p in signature.parameters.items()
                     if p.default is inspect.Parameter.empty and name not in kwargs)
    if unknown or missing:
        raise CallRefused(f"call {args.rule}: unknown keywords {unknown}, missing keywords {missing}; "
                          f"expected {list(signature.parameters)}")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    fn(**kwargs)
    return 0
