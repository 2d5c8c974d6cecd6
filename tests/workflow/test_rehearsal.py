"""The paper run, rehearsed: the README's workstation command with config/rehearsal.yaml after
config/paper.yaml plans the paper's jobs rule by rule (plus only the stand-in builds) and runs
green on CPU through the workstation profile, offline without the Makefile's environment (the
session's rehearsal_run, tests/support/session_runs.py)."""
from __future__ import annotations

import json

import pytest

from evidence_ledger.config.layers import layered_config

from support.paths import REPO_ROOT
from support.rehearsal import PAPER, REHEARSAL, STAND_IN_RULES, job_stats, rehearsal_args
from support.snakemake_runs import WITHOUT_MAKEFILE_ENV, run_snakemake


def planned_jobs(dry_run) -> dict[str, int]:
    counts = job_stats(dry_run.stdout)
    counts.pop("total")
    return counts


@pytest.mark.workflow
def test_rehearsal_plans_the_paper_jobs_rule_by_rule(paper_dry_run, rehearsal_dry_run):
    # the paper's dry run needs its models in the cache (stand-ins) and, on this CPU-only
    # machine, the CPU route for its GPU jobs (the same jobs): the preflight says so otherwise
    paper, rehearsal = planned_jobs(paper_dry_run), planned_jobs(rehearsal_dry_run)
    assert sum(paper.values()) == 114  # the paper config: tests/workflow/test_paper_config.py counts them
    assert {rule: n for rule, n in rehearsal.items() if rule not in STAND_IN_RULES} == paper
    assert set(rehearsal) - set(paper) == set(STAND_IN_RULES)


def test_rehearsal_changes_only_models_data_root_and_sizes():
    """Every key the rehearsal layer sets is a stand-in model setting, a training-claims file for
    the stand-ins, or a size; every study stays on."""
    allowed = ("models.", "gpu_jobs", "data.fever.claims.train", "data.scifact.claims.train", "generation.backend",
               "generation.demo_models", "retrieval.reranker.local_dir", "retrieval.reranker.build",
               "verifier.demo_model", "verifier.learning_rate", "sampling.", "verifier.examples_per_checkpoint",
               "verifier.final_update", "accounting.study1.bootstrap.draws", "accounting.bootstrap.primary.draws",
               "accounting.bootstrap.exploratory.draws", "accounting.bootstrap.crossed.draws",
               "diffgr.bootstrap.draws")
    paper = layered_config(REPO_ROOT, [PAPER])
    rehearsal = layered_config(REPO_ROOT, [PAPER, REHEARSAL])

    def changed(a, b, prefix=""):
        out = []
        for key in set(a) | set(b):
            x, y = a.get(key), b.get(key)
            if isinstance(x, dict) and isinstance(y, dict):
                out += changed(x, y, f"{prefix}{key}.")
            elif x != y:
                out.append(prefix + key)
        return out

    diff = changed(paper, rehearsal)
    assert diff and all(k.startswith(allowed) for k in diff), [k for k in diff if not k.startswith(allowed)]
    assert all(rehearsal["studies"].values())


@pytest.mark.workflow
def test_rehearsal_run_makes_every_final_output(rehearsal_run, rehearsal_data):
    proc = run_snakemake(rehearsal_run, "-n", *rehearsal_args(rehearsal_data), env=WITHOUT_MAKEFILE_ENV, check=True)
    assert "Nothing to be done" in proc.stdout + proc.stderr
    assert (rehearsal_run / "results" / "report" / "summary.html").stat().st_size > 0


@pytest.mark.workflow
def test_rehearsal_study1_reads_the_provider_submissions(rehearsal_run):
    """Study 1 evidence comes from the DCUF / UnifEE files in the data tree, not from our retrieval."""
    evidence = rehearsal_run / "results" / "evidence" / "feverous"
    assert (evidence / "external_dcuf.parquet").exists() and (evidence / "external_unifee.parquet").exists()
    assert not (evidence / "submissions").exists()
    summary = json.loads((evidence / "external_unifee.summary.json").read_text())
    assert summary  # unresolved and repeated ids are counted, not dropped


@pytest.mark.workflow
def test_saved_tokenizers_do_not_depend_on_the_environment(rehearsal_run):
    """Jobs ran without HF_HUB_OFFLINE: offline loading comes from the code, and no saved
    tokenizer config records how it was loaded."""
    configs = list((rehearsal_run / "results").rglob("tokenizer_config.json"))
    assert configs
    for path in configs:
        assert "local_files_only" not in json.loads(path.read_text()), path


@pytest.mark.workflow
def test_the_rehearsal_names_the_tokenizers_that_bounded_its_budgets(rehearsal_run):
    """The provenance table has a budget_tokenizer row per generation model with the sha256 of its
    tokenizer.json: with the real tokenizers present the stand-ins carry them, so the hashes are
    the real Qwen3 and Llama 3 files'."""
    import csv
    import hashlib

    from support.real_tokenizers import REAL_TOKENIZERS, real_tokenizers_present

    with open(rehearsal_run / "results" / "report" / "provenance.tsv", newline="") as f:
        rows = {r[1]: r[2] for r in csv.reader(f, delimiter="\t") if r and r[0] == "budget_tokenizer"}
    assert sorted(rows) == ["llama31", "qwen3"]
    for model, folder in (("qwen3", "qwen3"), ("llama31", "llama3")):
        assert rows[model].startswith(f"results/models/{model} tokenizer.json sha256 ")
        if real_tokenizers_present():
            real = hashlib.sha256((REAL_TOKENIZERS / folder / "tokenizer.json").read_bytes()).hexdigest()
            assert rows[model].endswith(real)
