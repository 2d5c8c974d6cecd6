"""A format of prediction files registered from outside the package is accounted by a pipeline run.

The toy format of ``tests/support/toy_format.py`` is named under config ``benchmark_plugins``
and one system under ``external.toyqa``; Snakemake runs rule ``account_system`` alone (the
system's tables are its outputs), the whole DAG plans the summary page and the ledger with the
system in them (a dry run), and the tables equal, byte for byte, those of ``account toyqa`` on the
same files with the same settings: no file of the package or the workflow names the format.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evidence_ledger.config.layers import layered_config
from support.hang_guard import HANG_GUARD_S
from support.paths import REPO_ROOT
from support.snakemake_runs import run_snakemake
from support.toy_format_world import toy_world

pytestmark = pytest.mark.workflow

SUPPORT = REPO_ROOT / "tests" / "support"
TABLES = ("estimates.tsv", "intervals.tsv", "answer_metrics.tsv")


def toy_config(root: Path) -> Path:
    """The demo config with the toy plugin and one ToyQA system (files under data_root/toy)."""
    data = root / "data"
    shutil.copytree(REPO_ROOT / "resources" / "demo", data)
    (data / "toy").mkdir()
    _, files = toy_world(data / "toy")
    layer = {"data_root": str(data), "benchmark_plugins": ["toy_format"],
             "external": {"toyqa": {"toy_system": {
                 "gold_file": "toy/toy_gold.jsonl", "top_k": 2,
                 "sources": {source: [f"toy/{p.name}" for p in paths] for source, paths in files.items()}}}}}
    path = root / "toy.yaml"
    path.write_text(yaml.safe_dump(layer), encoding="utf-8")
    return path


def snakemake(workdir: Path, layer: Path, *args: str) -> subprocess.CompletedProcess:
    """The demo config and ``layer``, the toy plugin's folder on PYTHONPATH."""
    return run_snakemake(workdir, "--configfile", REPO_ROOT / "config" / "demo.yaml", layer, "--cores", "2", *args,
                         pythonpath=[SUPPORT])


def test_a_plugin_format_is_accounted_by_the_pipeline_as_by_the_command(tmp_path):
    layer = toy_config(tmp_path)
    targets = [f"results/account/toy_system/{name}" for name in TABLES]
    proc = snakemake(tmp_path, layer, *targets)
    assert proc.returncode == 0, proc.stderr[-4000:]
    planned = snakemake(tmp_path, layer, "-n", "results/report/summary.html", "results/report/ledger.json")
    assert planned.returncode == 0, planned.stderr[-4000:]
    assert "summary_page" in planned.stdout and "ledger" in planned.stdout

    data = tmp_path / "data" / "toy"
    out = tmp_path / "command"
    draws = layered_config(REPO_ROOT)["accounting"]["study1"]["bootstrap"]["draws"]  # the demo's, not the default
    env = dict(os.environ, EVIDENCE_LEDGER_BENCHMARK_PLUGINS="toy_format",
               PYTHONPATH=os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")]))
    command = [sys.executable, "-m", "evidence_ledger", "account", "toyqa", "--gold", str(data / "toy_gold.jsonl"),
               "--source0", *(str(data / f"toy_base_{r}.jsonl") for r in (0, 1)),
               "--source1", *(str(data / f"toy_new_{r}.jsonl") for r in (0, 1)),
               "--names", "base", "new", "--system", "toy_system", "--top-k", "2", "--draws", str(draws),
               "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stderr
    for name in TABLES:
        assert (tmp_path / "results/account/toy_system" / name).read_bytes() == (out / name).read_bytes(), name
