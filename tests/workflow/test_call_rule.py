"""``python -m evidence_ledger call --rule RULE wildcard=value``: the workflow's own job, by hand.

On the embedded demo: in a temporary work directory holding the inputs of a cheap job, copied
from the session's demo run (whose Snakemake wrote the job's outputs), ``call --rule`` for the
same rule and wildcards must write the same bytes; the keyword arguments follow
``--configfile`` like Snakemake's own job (docs/LAYOUT.md, "Running one rule's function by hand").
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.hang_guard import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[2]


def _env() -> dict:
    return dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(REPO / "src"))


def call_rule(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "evidence_ledger", "call", "--directory", str(workdir), "--rule", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=HANG_GUARD_S, cwd=workdir)


def call_after_snakemake(demo_run: Path, workdir: Path, inputs: list[str], outputs: list[str], rule: str,
                         *wildcards: str) -> dict[str, tuple[bytes, bytes]]:
    """``{output: (the demo run's bytes, call --rule's bytes)}`` for one job, called in ``workdir``
    holding copies of the job's ``inputs`` from the demo run."""
    for path in inputs:
        (workdir / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(demo_run / path, workdir / path)
    proc = call_rule(workdir, rule, *wildcards)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {out: ((demo_run / out).read_bytes(), (workdir / out).read_bytes()) for out in outputs}


@pytest.mark.workflow
def test_sample_claims_by_hand_writes_what_snakemake_writes(demo_run, tmp_path):
    inputs = ["results/ingest/fever/claims_dev.parquet"]  # the demo samples FEVER's dev split (no reserved ids)
    outputs = ["results/sampling/fever/sample.parquet", "results/sampling/fever/sample_summary.tsv"]
    pairs = call_after_snakemake(demo_run, tmp_path, inputs, outputs, "sample_claims", "dataset=fever")
    for out, (by_snakemake, by_hand) in pairs.items():
        assert by_hand == by_snakemake, out


@pytest.mark.workflow
def test_ingest_conflict_qa_by_hand_writes_what_snakemake_writes(demo_run, tmp_path):
    outputs = ["results/ingest/nqcc/records.parquet"]
    pairs = call_after_snakemake(demo_run, tmp_path, [], outputs, "ingest_conflict_qa", "dataset=nqcc")
    for out, (by_snakemake, by_hand) in pairs.items():
        assert by_hand == by_snakemake, out


def test_the_keywords_follow_the_configfiles_given(tmp_path):
    workdir = tmp_path
    extra = workdir / "smaller.yaml"
    extra.write_text(yaml.safe_dump({"sampling": {"fever": {"n": 7}}}))
    proc = call_rule(workdir, "sample_claims", "dataset=fever", "--print",
                     "--configfile", str(REPO / "config" / "demo.yaml"), str(extra))
    assert proc.returncode == 0, proc.stderr[-4000:]
    printed = json.loads(proc.stdout)
    assert printed["function"] == "sample_claims"
    assert printed["kwargs"]["n"] == 7
    assert printed["kwargs"]["sample"] == "results/sampling/fever/sample.parquet"
    assert not (workdir / "results").exists(), "--print calls nothing"


def test_a_job_not_in_the_workflow_is_refused_with_its_wildcards(tmp_path):
    proc = call_rule(tmp_path, "sample_claims", "split=dev")
    assert proc.returncode != 0
    assert "has wildcards ['dataset']" in proc.stderr
