"""rule_job: a rule script's stage call read from its source and evaluated against a job's values."""
from types import SimpleNamespace

import pytest

from evidence_ledger.jobs.rule_job import evaluate_script_call, parse_wildcards, plain, script_statements

SCRIPT = '''"""Rule r: a -> b."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.sampling.stage import sample_claims

log_to_rule_log(snakemake.log[0])
n = int(snakemake.params.n) + 1
sample_claims(claims=snakemake.input.claims, n=n, method="hash")
'''


def test_wildcards_stay_strings():
    assert parse_wildcards(["dataset=fever", "seed=01"]) == {"dataset": "fever", "seed": "01"}
    with pytest.raises(ValueError, match="wildcard=value"):
        parse_wildcards(["fever"])


def test_the_logging_set_up_and_docstring_are_dropped_and_the_call_kept():
    keep, call = script_statements(SCRIPT)
    assert call.func.id == "sample_claims"
    assert [type(node).__name__ for node in keep] == ["ImportFrom", "ImportFrom", "Assign"]


def test_keywords_are_evaluated_after_the_scripts_own_statements():
    job = SimpleNamespace(log=["never/written.log"], params=SimpleNamespace(n="4"),
                          input=SimpleNamespace(claims="results/ingest/fever/claims_dev.parquet"))
    name, kwargs = evaluate_script_call(SCRIPT, "r.py", job)
    assert name == "sample_claims"
    assert kwargs == {"claims": "results/ingest/fever/claims_dev.parquet", "n": 5, "method": "hash"}


def test_positional_arguments_are_refused():
    with pytest.raises(ValueError, match="positional"):
        evaluate_script_call("f(1)\n", "r.py", None)


def test_plain_turns_containers_into_lists_and_dicts():
    assert plain({"a": ("x", ["y"]), "b": 3}) == {"a": ["x", ["y"]], "b": 3}
