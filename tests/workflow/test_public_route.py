"""The paper's design on public files only (config/public.yaml after config/paper.yaml, and after
config/rehearsal.yaml for the CPU rehearsal): it plans without any author-held file in the data
tree, and its rehearsal runs green through the workstation profile, with the substitutes named
in the report.

The rehearsal run starts from a copy of the session's paper rehearsal (test_rehearsal.py) and
re-runs what the public layer changes: Snakemake's own rerun triggers (params, input sets, file
times) pick the jobs. The stand-in models are the rehearsal's: the rules that build them are left
out of the run (``--allowed-rules``), which is sound because their inputs - the release's train
claims, the corpora and the conflict items - are byte for byte the same under the public layer
(checked below), so building them again would give the same models.
"""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pandas as pd
import pytest

from evidence_ledger.config.layers import layered_config
from evidence_ledger.config.paper_inputs import author_held_inputs, config_value

from support.cost_markers import costs
from support.paths import REPO_ROOT
from support.rehearsal import (DEFAULT_PROFILE, PAPER, REHEARSAL, STAND_IN_RULES, job_stats, paper_data_tree,
                               real_tokenizer_entries)
from support.snakemake_runs import WITHOUT_MAKEFILE_ENV, run_snakemake

PUBLIC = REPO_ROOT / "config" / "public.yaml"
# the stand-ins' training inputs (workflow/rules/demo_functions.smk, demo.smk)
STAND_IN_INPUTS = [f"results/ingest/{d}/{t}.parquet" for d in ("fever", "feverous", "scifact")
                   for t in ("claims_train", "units")] + [
    "results/ingest/wikicontradict/instances.parquet", "results/ingest/nqcc/records.parquet",
    "results/ingest/tqacc/records.parquet"]


def public_args(data_root: Path, *layers: Path) -> list[str]:
    return ["--configfile", str(PAPER), *map(str, layers), str(PUBLIC), "--config", f"data_root={data_root}"]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_public_layer_reads_no_author_held_file():
    for layers in ((PAPER, PUBLIC), (PAPER, REHEARSAL, PUBLIC)):
        config = layered_config(REPO_ROOT, list(layers))
        named = [item.key for item in author_held_inputs() if config_value(config, item.key)]
        assert not named, f"{[p.name for p in layers]} still names {named}"


@pytest.mark.workflow
def test_public_route_plans_on_a_tree_without_the_author_held_files(paper_hub, tmp_path):
    """Dry runs of the paper and the rehearsal with the public layer, on a data tree from which
    every author-held file was deleted: no job needs one."""
    data = paper_data_tree(tmp_path / "data")
    for item in author_held_inputs():
        (data / item.path).unlink()
    for layers, machine in (((), ["gpu_jobs=cpu"]), ((REHEARSAL,), [])):
        proc = run_snakemake(tmp_path / f"plan{len(layers)}", "-n", "--profile", DEFAULT_PROFILE,
                             *public_args(data, *layers), *machine, hub_cache=paper_hub, env=WITHOUT_MAKEFILE_ENV,
                             check=True)
        jobs = job_stats(proc.stdout)
        assert jobs["export_provider_submissions"] == 2 and jobs["import_evidence_source"] == 2
        assert "wikicontradict_judge_human" not in jobs


@pytest.fixture(scope="module")
@costs("workflow")
def public_run(rehearsal_run, rehearsal_data, tmp_path_factory) -> Path:
    """A copy of the paper rehearsal's work directory, brought up to date under the public layer
    through the workstation profile, the stand-in builds left out."""
    work = tmp_path_factory.mktemp("public") / "run"
    shutil.copytree(rehearsal_run, work, symlinks=True, ignore=shutil.ignore_patterns("locks", "report.html"))
    args = [*public_args(rehearsal_data, REHEARSAL), *real_tokenizer_entries()]  # the rehearsal's stand-ins
    listed = run_snakemake(work, "--list-rules", *args, env=WITHOUT_MAKEFILE_ENV, check=True)
    allowed = [r for r in listed.stdout.split() if r not in STAND_IN_RULES]
    proc = run_snakemake(work, "--profile", DEFAULT_PROFILE, *args, "--allowed-rules", *allowed,
                         env=WITHOUT_MAKEFILE_ENV, check=True)
    (work / "public_run.log").write_text(proc.stdout + proc.stderr)
    return work


@pytest.mark.workflow
def test_public_rehearsal_reuses_stand_ins_whose_inputs_are_unchanged(public_run, rehearsal_run):
    changed = [p for p in STAND_IN_INPUTS if _sha(public_run / p) != _sha(rehearsal_run / p)]
    assert not changed, f"the stand-ins would train on other inputs under the public layer: {changed}"
    log = (public_run / "public_run.log").read_text()
    assert "rule ingest_feverous:" in log  # the pool split is gone: FEVEROUS was ingested again


@pytest.mark.workflow
def test_public_rehearsal_samples_study2_from_dev_and_reads_our_own_submissions(public_run):
    results = public_run / "results"
    sample = pd.read_parquet(results / "sampling" / "feverous" / "sample.parquet")
    dev = set(pd.read_parquet(results / "ingest" / "feverous" / "claims_dev.parquet")["claim_id"])
    assert len(sample) == 24 and set(sample["claim_id"]) <= dev
    log = (public_run / "public_run.log").read_text()
    for name in ("bm25", "bge"):
        assert (results / "evidence" / "feverous" / "submissions" / f"external_retrieval_{name}.jsonl").stat().st_size > 0
        assert f"results/evidence/feverous/external_retrieval_{name}.parquet" in log
    inputs = [line for line in log.splitlines() if line.strip().startswith("input:")]
    assert inputs and not [line for line in inputs if "dcuf" in line or "unifee" in line]


@pytest.mark.workflow
def test_public_rehearsal_report_names_each_substitute(public_run):
    rows = [line.split("\t") for line in (public_run / "results/report/provenance.tsv").read_text().splitlines()]
    substitutes = [r for r in rows if r[0] == "substitute"]
    assert [r[1].rsplit("(", 1)[1].rstrip(")") for r in substitutes] == [i.key for i in author_held_inputs()]
    page = (public_run / "results/report/summary.html").read_text(encoding="utf-8")
    assert "Author-held inputs and the public substitutes that ran instead:" in page
    assert "the public dev split" in page and "the pipeline&#x27;s own bm25 ordering" in page
