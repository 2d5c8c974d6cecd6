"""Run one rule's stage function outside Snakemake: ``python -m evidence_ledger call RULE key=value ...``.

Every rule ``R`` has a script ``scripts/R.py`` that calls one keyword-only function
``evidence_ledger.<package>.stage.R`` with paths and plain values. This command finds that
function by the rule's name (in the ``stage`` module of every package) and calls it with
the given keyword arguments, each value parsed as YAML (``k=5`` is an int, ``k=[a, b]`` a
list, ``k=null`` None, anything else a string). Logging goes to stderr.

In:  a rule name and ``key=value`` pairs. Out: the function's effect (its output files);
exit 2 with a message naming the missing or unknown keywords.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import logging
import pkgutil

import yaml

import evidence_ledger


def stage_functions() -> dict[str, object]:
    """``{rule name: function}`` for every public function of every ``evidence_ledger.<pkg>.stage`` module."""
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
    parser.add_argument("arguments", nargs="*", help="key=value keyword arguments of the stage function")
    parser.add_argument("--list", action="store_true", help="list every rule's function and its keywords")
    parser.set_defaults(func=run)


def run(args) -> int:
    functions = stage_functions()
    if args.list or not args.rule:
        for name in sorted(functions):
            params = ", ".join(inspect.signature(functions[name]).parameters)
            print(f"{name}({params})  [{functions[name].__module__}]")
        return 0
    if args.rule not in functions:
        raise SystemExit(f"call: no stage function named {args.rule!r}; `call --list` shows them")
    fn = functions[args.rule]
    try:
        kwargs = parse_keyword_arguments(args.arguments)
    except ValueError as exc:
        raise SystemExit(f"call: {exc}") from None
    signature = inspect.signature(fn)
    unknown = sorted(set(kwargs) - set(signature.parameters))
    missing = sorted(name for name, p in signature.parameters.items()
                     if p.default is inspect.Parameter.empty and name not in kwargs)
    if unknown or missing:
        raise SystemExit(f"call {args.rule}: unknown keywords {unknown}, missing keywords {missing}; "
                         f"expected {list(signature.parameters)}")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    fn(**kwargs)
    return 0
