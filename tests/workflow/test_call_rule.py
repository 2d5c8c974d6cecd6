"""``python -m evidence_ledger call --rule RULE wildcard=value``: the workflow's own job, by hand.

On the embedded demo in a temporary work directory: Snakemake runs a cheap job (and what it
needs), its outputs are set aside, and ``call --rule`` for the same rule and wildcards must
write the same bytes; the keyword arguments follow ``--configfile`` like Snakemake's own job
(docs/LAYOUT.md, "Running one rule's function by hand").
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.hang_guard import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"

pytestmark = pytest.mark.workflow


def _env() -> dict:
    return dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(REPO / "src"))


def snakemake(workdir: Path, *targets: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--cores", "1", *targets]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=HANG_GUARD_S)


def call_rule(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "evidence_ledger", "call", "--directory", str(workdir), "--rule", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=HANG_GUARD_S, cwd=workdir)


def snakemake_then_call(workdir: Path, outputs: list[str], rule: str, *wildcards: str) -> dict[str, tuple[bytes, bytes]]:
    """``{output: (Snakemake's bytes, call --rule's bytes)}`` for one job."""
    proc = snakemake(workdir, *outputs)
    assert proc.returncode == 0, proc.stderr[-4000:]
    written = {out: (workdir / out).read_bytes() for out in outputs}
    for out in outputs:
        (workdir / out).unlink()
    proc = call_rule(workdir, rule, *wildcards)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {out: (written[out], (workdir / out).read_bytes()) for out in outputs}


@pytest.fixture
def workdir(tmp_path) -> Path:
    if not (DEMO / "fever").is_dir():
        pytest.skip("demo data not generated (python -m evidence_ledger.demo.data)")
    return tmp_path


def test_sample_claims_by_hand_writes_what_snakemake_writes(workdir):
    outputs = ["results/sampling/fever/sample.parquet", "results/sampling/fever/sample_summary.tsv"]
    for out, (by_snakemake, by_hand) in snakemake_then_call(workdir, outputs, "sample_claims", "dataset=fever").items():
        assert by_hand == by_snakemake, out


def test_ingest_conflict_qa_by_hand_writes_what_snakemake_writes(workdir):
    outputs = ["results/ingest/nqcc/records.parquet"]
    for out, (by_snakemake, by_hand) in snakemake_then_call(workdir, outputs, "ingest_conflict_qa", "dataset=nqcc").items():
        assert by_hand == by_snakemake, out


def test_the_keywords_follow_the_configfiles_given(workdir):
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


def test_a_job_not_in_the_workflow_is_refused_with_its_wildcards(workdir):
    proc = call_rule(workdir, "sample_claims", "split=dev")
    assert proc.returncode != 0
    assert "has wildcards ['dataset']" in proc.stderr
