"""rule_job: one job of the workflow, as Snakemake would run it, for ``call --rule``."""
from pathlib import Path

import pytest

from evidence_ledger.jobs.rule_job import parse_wildcards, plain, rule_job_call

REPO = Path(__file__).resolve().parents[3]


def test_wildcards_stay_strings():
    assert parse_wildcards(["dataset=fever", "seed=01"]) == {"dataset": "fever", "seed": "01"}
    with pytest.raises(ValueError, match="wildcard=value"):
        parse_wildcards(["fever"])


def test_plain_turns_containers_into_lists_and_dicts():
    assert plain({"a": ("x", ["y"]), "b": 3}) == {"a": ["x", ["y"]], "b": 3}


def test_the_job_call_is_the_rule_function_with_the_job_entries_by_name(tmp_path):
    call = rule_job_call("study2_bootstrap", {"family": "primary"}, snakefile=REPO / "Snakefile", workdir=tmp_path)
    assert call.function == "study2_bootstrap"
    assert call.kwargs["counts"] == "results/accounting/study2/counts.parquet"
    assert call.kwargs["intervals_out"] == "results/accounting/study2/intervals_primary.parquet"
    assert call.kwargs["family"] == "primary" and call.kwargs["datasets"] == ["fever", "feverous", "scifact"]
    assert isinstance(call.kwargs["draws"], int) and call.kwargs["draws"] > 0
    assert call.outputs == ("results/accounting/study2/intervals_primary.parquet",
                            "results/accounting/study2/intervals_primary.tsv")
