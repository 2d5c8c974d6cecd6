"""docs/adding_a_model.md, followed: a third model added through a config layer only (its
``models:`` entry and its name in ``generation.models``) runs its ``generate`` rule, and its
tokenizer bounds the evidence budgets without ``evidence.budget_tokenizers`` being edited.

The third model is a small chat model of its own (a tokenizer of another vocabulary than the two
stand-ins', a few training steps) in a local directory, as a user's downloaded model would be;
the run is a copy of the session's paper rehearsal (test_rehearsal.py), so only the third
model's requests and answers are made.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from evidence_ledger.config.layers import layered_config
from evidence_ledger.demo.stage import build_demo_models

from support.cost_markers import costs
from support.hang_guard import HANG_GUARD_S
from support.paths import REPO_ROOT
from support.rehearsal import PAPER, REHEARSAL, real_tokenizer_entries
from support.snakemake_runs import WITHOUT_MAKEFILE_ENV, run_snakemake, snakemake_env

NAME = "third"
DATASET = "scifact"
MODEL_DIR = f"models/{NAME}"


def third_model_layer() -> dict:
    """The layer of the recipe: one ``models:`` entry (every required key) and the model list."""
    models = layered_config(REPO_ROOT, [PAPER, REHEARSAL])["generation"]["models"]
    return {
        "models": {NAME: {"hub_id": "example-org/third-chat-model", "revision": "0" * 40, "local_dir": MODEL_DIR,
                          "build": None, "dtype": "float32", "chat_template_kwargs": {},
                          "trust_remote_code": False}},
        "generation": {"models": [*models, NAME]},
    }


@pytest.fixture(scope="module")
@costs("workflow")
def third_model_run(rehearsal_run, tmp_path_factory) -> Path:
    """A copy of the rehearsal's work directory with the third model's directory in it."""
    work = tmp_path_factory.mktemp("third_model") / "run"
    shutil.copytree(rehearsal_run, work, symlinks=True, ignore=shutil.ignore_patterns("locks", "report.html"))
    config = layered_config(REPO_ROOT, [PAPER, REHEARSAL])
    ingest = work / "results" / "ingest" / DATASET
    build_demo_models(claims=[str(ingest / "claims_train.parquet")], units=[str(ingest / "units.parquet")],
                      arch="llama31", chat_template_kwargs={}, code_mappings=config["generation"]["code_mappings"],
                      steps=4, batch_size=4, lr=0.01, seed=3, vocab_size=1024, out=str(work / MODEL_DIR))
    (work / "my_models.yaml").write_text(yaml.safe_dump(third_model_layer(), sort_keys=False))
    return work


def args(work: Path, data_root: Path) -> list[str]:
    return ["--configfile", str(PAPER), str(REHEARSAL), str(work / "my_models.yaml"), "--config",
            f"data_root={data_root}", *real_tokenizer_entries()]  # the rehearsal's own stand-ins


def test_the_layer_holds_only_the_documented_keys():
    recipe = (REPO_ROOT / "docs" / "adding_a_model.md").read_text()
    layer = third_model_layer()
    assert set(layer) == {"models", "generation"} and set(layer["generation"]) == {"models"}
    for key in layer["models"][NAME]:
        assert f"    {key}:" in recipe, f"docs/adding_a_model.md does not show the key {key}"
    assert "trust_remote_code: false   # required" in recipe


@pytest.mark.workflow
def test_third_model_runs_its_generate_rule(third_model_run, rehearsal_data):
    target = f"results/generation/{NAME}/{DATASET}/shards/responses_0.parquet"
    proc = run_snakemake(third_model_run, "--cores", "2", *args(third_model_run, rehearsal_data),
                         "--allowed-rules", "plan_requests", "generate", "--", target, env=WITHOUT_MAKEFILE_ENV,
                         check=True)
    assert "rule generate:" in proc.stdout + proc.stderr or "localrule generate:" in proc.stdout + proc.stderr
    requests = pq.read_table(third_model_run / f"results/generation/{NAME}/{DATASET}/requests.parquet")
    responses = pq.read_table(third_model_run / target)
    # one response per distinct request (identical requests are asked once), from the third model's files
    assert requests.num_rows > 0
    assert sorted(responses.column("request_id").to_pylist()) == sorted(set(requests.column("request_id").to_pylist()))
    assert set(responses.column("model").to_pylist()) == {NAME}
    weights = set(responses.column("weights_hash").to_pylist())  # a local directory is identified by its files
    assert len(weights) == 1 and len(weights.pop()) == 64


@pytest.mark.workflow
def test_third_model_tokenizer_bounds_the_evidence_budgets(third_model_run, rehearsal_data):
    """The assemble_evidence job the workflow would run counts the budgets under the third
    model's tokenizer too (``call --print`` shows its keyword arguments)."""
    cmd = [sys.executable, "-m", "evidence_ledger", "call", "--rule", "assemble_evidence", f"dataset={DATASET}",
           "--print", *args(third_model_run, rehearsal_data), "--directory", str(third_model_run),
           "--snakefile", str(REPO_ROOT / "Snakefile")]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=snakemake_env(WITHOUT_MAKEFILE_ENV),
                          timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-4000:]
    tokenizers = json.loads(proc.stdout)["kwargs"]["tokenizers"]
    assert MODEL_DIR in [spec["path"] for spec in tokenizers.values()], tokenizers
