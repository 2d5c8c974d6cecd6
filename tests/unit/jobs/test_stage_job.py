"""The one adapter between a rule's job and its stage function (``evidence_ledger.jobs.stage_job``).

Each named input, output and param of a rule is the stage function's keyword of the same name;
every job of the embedded demo's DAG is checked against its function here, before any runs, so
a renamed keyword or a rule entry nobody reads fails at once instead of hours into a run.
"""
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from evidence_ledger.benchmark_registry import benchmark_names
from evidence_ledger.jobs.rule_job import workflow_dag
from evidence_ledger.jobs.stage_job import (RuleMismatch, job_keywords, stage_function, stage_function_modules,
                                             stage_function_name, stage_functions)

REPO = Path(__file__).resolve().parents[3]


def stage(*, claims, sample, n, method="hash", reference=None):
    """A stage function's shape: keyword-only, optional entries with defaults."""


def test_each_named_entry_is_the_keyword_of_its_name():
    keywords = job_keywords(stage, "r", {"claims": ["a.parquet", "b.parquet"], "reference": "ref.tsv"},
                            {"sample": "out.parquet"}, {"n": 5})
    assert keywords == {"claims": ["a.parquet", "b.parquet"], "reference": "ref.tsv", "sample": "out.parquet", "n": 5}


def test_a_keyword_with_a_default_may_be_left_out_and_a_required_one_may_not():
    assert "method" not in job_keywords(stage, "r", {"claims": []}, {"sample": "s"}, {"n": 1})
    with pytest.raises(RuleMismatch, match=r"rule r and .*stage do not match: no named input, output or param gives \['n'\]"):
        job_keywords(stage, "r", {"claims": []}, {"sample": "s"}, {})


def test_an_entry_the_function_does_not_take_is_refused_naming_it():
    with pytest.raises(RuleMismatch, match=r"the rule passes params 'budget' that the function does not take"):
        job_keywords(stage, "r", {"claims": []}, {"sample": "s"}, {"n": 1, "budget": "short"})


def test_a_name_used_twice_is_refused():
    with pytest.raises(RuleMismatch, match=r"'sample' is both a named input and a named output"):
        job_keywords(stage, "r", {"claims": [], "sample": "in"}, {"sample": "s"}, {"n": 1})


def test_the_functions_read_from_source_are_the_stage_modules_functions():
    assert {name: module for name, module in stage_function_modules().items()} == {
        name: fn.__module__ for name, fn in stage_functions().items()}


def test_a_job_imports_only_its_own_stage_module():
    """A cheap job (ingest, sampling) must not pay for the model libraries other stages load."""
    code = ("import sys; from evidence_ledger.jobs.stage_job import stage_function; stage_function('sample_claims'); "
            "print(sorted(m for m in sys.modules if m.endswith('.stage') and m.startswith('evidence_ledger')), "
            "'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['evidence_ledger.sampling.stage'] False"


def test_a_rule_finds_the_function_of_its_name_and_the_per_benchmark_ingest_rules_share_one():
    assert stage_function("sample_claims").__module__ == "evidence_ledger.sampling.stage"
    assert {stage_function_name(f"ingest_{name}", {"ingest_claim_benchmark"}) for name in benchmark_names()} == {
        "ingest_claim_benchmark"}
    with pytest.raises(LookupError, match="rule no_such_rule has no stage function"):
        stage_function("no_such_rule")


@pytest.fixture(scope="module")
def demo_jobs(tmp_path_factory):
    """Every job of the embedded demo's DAG (built as ``snakemake -n`` builds it, in an empty work
    directory), with the names of all the workflow's rules."""
    with workflow_dag(REPO / "Snakefile", tmp_path_factory.mktemp("run"), [], {}, targets=["all"]) as workflow:
        rules = {rule.name for rule in workflow.rules} - {"all"}
        yield [job for job in workflow.dag.jobs if job.rule.name != "all"], rules


def test_every_job_of_the_demo_maps_onto_its_stage_function(demo_jobs):
    jobs, rules = demo_jobs
    assert {job.rule.name for job in jobs} == rules, "every rule has a job in the demo"
    for job in jobs:
        job_keywords(stage_function(job.rule.name), job.rule.name, job.input, job.output, job.params)


def test_every_rule_runs_the_one_adapter_script(demo_jobs):
    jobs, _ = demo_jobs
    assert {Path(job.rule.script).name for job in jobs} == {"call_stage.py"}
    assert sorted(p.name for p in (REPO / "scripts").iterdir()) == ["call_stage.py"]


def test_a_keyword_a_rule_fills_from_its_params_has_no_default_of_its_own(demo_jobs):
    """A param carries a config value; a default beside it that asks for something (a number, a
    name, True) would be a second copy of config/defaults.yaml, used wherever the function is
    called without the rule. None, False and empty defaults ask for nothing."""
    jobs, _ = demo_jobs
    found = set()
    for job in jobs:
        function = stage_function(job.rule.name)
        keywords = inspect.signature(function).parameters
        found |= {f"{function.__name__}({name}={keywords[name].default!r})" for name in job.params.keys()
                  if keywords[name].default is not inspect.Parameter.empty
                  and keywords[name].default not in (None, False, "", (), [])}
    assert not found, sorted(found)
