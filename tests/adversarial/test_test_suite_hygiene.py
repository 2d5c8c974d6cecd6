"""Probes of the test suite itself: tests must hold on a loaded machine. Every subprocess limit in
``tests/workflow`` and ``tests/benchmarks`` is the shared hang guard (no literal below it), and no
test asserts on elapsed wall-clock time."""
import re
from pathlib import Path

from support.hang_guard import HANG_GUARD_S
from support.paths import REPO_ROOT

TESTS = REPO_ROOT / "tests"
LITERAL_TIMEOUT = re.compile(r"timeout\s*[=:]\s*(?:int\s*=\s*)?(\d+)")
ELAPSED_ASSERT = re.compile(r"assert\s+[^\n]*(elapsed|perf_counter\(\)|time\.time\(\)\s*-)[^\n]*<")


def python_files(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (TESTS / folder).rglob("*.py"))


def test_hang_guard_is_at_least_an_hour():
    assert HANG_GUARD_S >= 3600


def test_no_workflow_or_benchmark_subprocess_limit_below_the_hang_guard():
    short = [f"{p.relative_to(REPO_ROOT)}: timeout {m.group(1)}"
             for p in python_files("workflow", "benchmarks", "support")
             for m in LITERAL_TIMEOUT.finditer(p.read_text()) if int(m.group(1)) < HANG_GUARD_S]
    allowed = {"tests/support/slurm_cluster.py: timeout 15"}  # waits for a terminated daemon, then kills it
    assert [s for s in short if s not in allowed] == []


def test_no_test_asserts_on_elapsed_time():
    found = [f"{p.relative_to(REPO_ROOT)}: {m.group(0).strip()}"
             for p in python_files("unit", "workflow", "benchmarks", "adversarial")
             for m in ELAPSED_ASSERT.finditer(p.read_text())]
    assert found == []
