"""The vLLM backend checks, run in a fresh interpreter.

vLLM 0.32's CPU platform, when it starts an engine, scans every module loaded in the
process for Triton kernels to override and crashes on llvmlite's FFI wrapper objects
(``'_lib_fn_wrapper' object has no attribute 'get'``). bm25s imports numba (and so
llvmlite) at import time, and pytest imports every test module before running any, so the
checks in ``tests/support/vllm_checks/check_vllm_backend.py`` run in a child pytest whose process
never imports the retrieval code. The generation rule runs in its own process and is not
affected.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO_ROOT

pytestmark = pytest.mark.vllm

CHECKS = REPO_ROOT / "tests" / "support" / "vllm_checks" / "check_vllm_backend.py"


def test_vllm_backend_checks_pass_in_a_fresh_interpreter():
    env = dict(os.environ, VLLM_ENABLE_V1_MULTIPROCESSING="0", VLLM_CPU_KVCACHE_SPACE="1", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(CHECKS)],
                          capture_output=True, text=True, env=env, timeout=900)
    tail = (proc.stdout + proc.stderr)[-5000:]
    if "vllm is not importable here" in proc.stdout and proc.returncode == 0 and " passed" not in proc.stdout:
        pytest.skip("vllm not importable: " + tail[-500:])
    assert proc.returncode == 0, tail
    assert "6 passed" in proc.stdout or "5 passed, 1 skipped" in proc.stdout, tail
