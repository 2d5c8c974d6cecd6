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


def test_assemble_evidence_reads_the_study2_sample_not_the_extra_claim_splits(tmp_path):
    """The demo retrieves FEVEROUS train and dev claims besides the Study 2 sample (their orderings
    are exported); evidence is assembled for the sample only, the claims generated for."""
    call = rule_job_call("assemble_evidence", {"dataset": "feverous"}, snakefile=REPO / "Snakefile", workdir=tmp_path)
    assert call.kwargs["claims"] == ["results/sampling/feverous/sample.parquet"]
    assert call.kwargs["bm25"] == "results/retrieval/feverous/ordering_bm25.parquet"
