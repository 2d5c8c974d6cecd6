"""scripts/<rule>.py: one calling convention for every rule script (docs/LAYOUT.md).

Each script logs to its rule's log file through the one shared helper and then calls one
keyword-only stage function named like the rule (the ``ingest_<benchmark>`` rules, one per
registered benchmark, share ``ingest_claim_benchmark``), from an ``evidence_ledger.<pkg>.stage``
module, passing plain values and paths (never the ``snakemake`` object itself).
"""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evidence_ledger.benchmark_registry import benchmark_names
from evidence_ledger.jobs.stage_call import stage_functions

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((REPO / "scripts").glob("*.py"))


def workflow_rules() -> list[str]:
    """Rule names of the demo workflow as Snakemake lists them (rules made in loops included)."""
    out = subprocess.run([sys.executable, "-m", "snakemake", "--list-rules", "--snakefile", str(REPO / "Snakefile")],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    return sorted(set(out.split()) - {"all"})


RULES = workflow_rules()
# ingest_<benchmark> rules are made in one loop over the benchmark registry and share one script
CLAIM_INGEST_RULES = {f"ingest_{name}" for name in benchmark_names()}
SCRIPT_RULES = sorted(set(RULES) - CLAIM_INGEST_RULES | {"ingest_claim_benchmark"})


def test_every_rule_has_a_script_named_like_it():
    assert [p.stem for p in SCRIPTS] == SCRIPT_RULES


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_script_logs_to_the_rule_log_then_calls_its_stage_function_once(script):
    tree = ast.parse(script.read_text())
    assert ast.get_docstring(tree), "a script starts with a docstring saying what it reads and writes"
    imports = {alias.asname or alias.name: node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               for alias in node.names}
    assert imports.get("log_to_rule_log") == "evidence_ledger.jobs.rule_log"
    assert re.fullmatch(r"evidence_ledger\.\w+\.stage", imports.get(script.stem, "")), \
        f"{script.name} must import {script.stem} from an evidence_ledger.<package>.stage module"
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    assert [c.func.id for c in calls if c.func.id == script.stem] == [script.stem]
    (call,) = [c for c in calls if c.func.id == script.stem]
    assert not call.args, "stage functions are called with keywords only"
    assert not any(isinstance(kw.value, ast.Name) and kw.value.id == "snakemake" for kw in call.keywords)
    assert "basicConfig" not in script.read_text()


def test_every_rule_function_is_found_by_the_call_command():
    assert set(SCRIPT_RULES) <= set(stage_functions())


def helper_param_names(text: str, rule_files: str, seen: frozenset = frozenset()) -> set[str]:
    """Names that ``**helper(...)`` entries of ``text`` add to a params block: the quoted keys of
    the helper's returned dicts (helpers within helpers followed), and a key given by a
    ``<name>_key="..."`` argument of the call or default of the helper."""
    names = set()
    for func, args in re.findall(r"\*\*(\w+)\(([^)]*)\)", text):
        body = re.search(rf"^def {func}\((.*?)\):\n((?:[ \t]+.*\n|\s*\n)+)", rule_files, re.M)
        if not body or func in seen:
            continue
        names |= set(re.findall(r"\"(\w+)\":", body.group(2)))
        names |= set(re.findall(r"\w+_key=\"(\w+)\"", args)) or set(re.findall(r"\w+_key=\"(\w+)\"", body.group(1)))
        names |= helper_param_names(body.group(2), rule_files, seen | {func})
    return names


def declared_params_by_script() -> dict[str, set[str]]:
    """``{script stem: names under params:}`` read from the rule files (every rule that runs the
    script; the ingest loop's rules share one script and one params block; ``**helper(...)``
    entries add the keys the helper returns)."""
    out: dict[str, set[str]] = {}
    rule_files = "\n".join(p.read_text() for p in sorted((REPO / "workflow" / "rules").glob("*.smk")))
    for smk in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        for block in re.split(r"^\s*rule\b", smk.read_text(), flags=re.M)[1:]:
            script = re.search(r"script:\s*\n\s*(?:#[^\n]*\n\s*)*\"[^\"]*/scripts/(\w+)\.py\"", block)
            params = re.search(r"\n(\s+)params:\n((?:\1\s+.*\n|\s*#.*\n)+)", block)
            if not script:
                continue
            names = set(re.findall(r"^\s+(\w+)=", params.group(2), re.M)) if params else set()
            names |= helper_param_names(params.group(2), rule_files) if params else set()
            out.setdefault(script.group(1), set()).update(names)
    return out


def test_every_param_a_script_reads_is_declared_by_its_rule():
    """A script reading ``snakemake.params.X`` that its rule no longer declares fails only when
    the job runs; catch it here (a removed setting once broke build_demo_models this way)."""
    declared = declared_params_by_script()
    assert set(declared) == {p.stem for p in SCRIPTS}
    for script in SCRIPTS:
        used = set(re.findall(r"snakemake\.params\.(\w+)", script.read_text()))
        used |= set(re.findall(r"snakemake\.params\.get\(\"(\w+)\"", script.read_text()))
        used -= {"get"}
        assert used <= declared[script.stem], f"{script.name} reads undeclared params {sorted(used - declared[script.stem])}"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_script_passes_every_required_keyword_of_its_stage_function(script):
    """A keyword the stage function requires and the script does not pass fails only when the job
    runs, hours into a run: here it fails at once (a ``**spread`` of a params dict counts as
    passing the keys it may hold, so such scripts are checked for unknown names only)."""
    import importlib
    import inspect

    tree = ast.parse(script.read_text())
    (call,) = [node for node in ast.walk(tree)
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == script.stem]
    passed = {kw.arg for kw in call.keywords if kw.arg is not None}
    spreads = any(kw.arg is None for kw in call.keywords)
    module = next(node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                  and any((a.asname or a.name) == script.stem for a in node.names))
    params = inspect.signature(getattr(importlib.import_module(module), script.stem)).parameters
    required = {n for n, p in params.items() if p.default is inspect.Parameter.empty
                and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    takes_any = any(p.kind == p.VAR_KEYWORD for p in params.values())
    assert takes_any or not passed - set(params), f"{script.name} passes unknown keywords {passed - set(params)}"
    if not spreads:
        assert not required - passed, f"{script.name} does not pass required keywords {required - passed}"
