"""benchmarks/gpu_check.sh in its reduced CPU mode writes the three throughput records."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from support.paths import REPO_ROOT
from support.hang_guard import HANG_GUARD_S


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU is present: run the full check by hand")
def test_gpu_check_cpu_mode_writes_generation_reranker_and_verifier_numbers(tmp_path):
    env = dict(os.environ, OUT=str(tmp_path), PY=sys.executable, OMP_NUM_THREADS="1")
    proc = subprocess.run(["bash", str(REPO_ROOT / "benchmarks" / "gpu_check.sh")], env=env,
                          capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:] + (tmp_path / "gpu_check.log").read_text()[-3000:]
    assert "mode=cpu" in (tmp_path / "gpu_check.log").read_text()
    generation = json.loads((tmp_path / "generation.json").read_text())
    assert generation["workload"]["requests"] == 48
    assert generation["results"]["transformers"]["requests_per_s"] > 0
    reranker = json.loads((tmp_path / "reranker.json").read_text())
    assert reranker["pairs"] == 200 and reranker["pairs_per_s"] > 0
    assert 0 < reranker["load_peak_rss_mib"] <= reranker["peak_rss_mib"]  # host memory: after loading, after scoring
    verifier = json.loads((tmp_path / "verifier.json").read_text())
    assert verifier["cpu"]["train_updates"] == 5 and verifier["cpu"]["train_updates_per_s_cpu"] > 0
