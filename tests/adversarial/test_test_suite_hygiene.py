"""Probes of the test suite itself: tests must hold on a loaded machine. Every subprocess limit in
``tests/workflow`` and ``tests/benchmarks`` is the shared hang guard (no literal below it), and no
test asserts on elapsed wall-clock time. Tests say what they cost: only a test marked for it
starts Snakemake, a vLLM server or a SLURM cluster (support/cost_markers.py), and every
Snakemake process goes through the one runner (support/snakemake_runs.py)."""
import re
from pathlib import Path

import pytest

from support.cost_markers import UnmarkedCost
from support.hang_guard import HANG_GUARD_S
from support.paths import REPO_ROOT
from support.snakemake_runs import run_snakemake, start_snakemake

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


# --- what a test costs: Snakemake, servers and clusters only from tests marked for them ---

SNAKEMAKE_CALL = re.compile(r"""["']-m["'],\s*["']snakemake["']|with_name\(["']snakemake["']\)"""
                            r"""|which\(["']snakemake["']""")


def test_an_unmarked_test_is_refused_snakemake_a_server_and_a_cluster(tmp_path):
    """This test carries no cost marker: starting Snakemake (waited for or not), a vLLM server or a
    SLURM cluster from it is refused, before anything starts."""
    from support.slurm_cluster import SlurmCluster
    from support.vllm_server import VllmServer

    with pytest.raises(UnmarkedCost, match=r"test_test_suite_hygiene.py::\S+ starts Snakemake but is not marked "
                                           r"workflow or slurm"):
        run_snakemake(tmp_path, "--version")
    with pytest.raises(UnmarkedCost, match="starts Snakemake"):
        start_snakemake(tmp_path, "--version")
    with pytest.raises(UnmarkedCost, match="starts a vLLM server but is not marked vllm"):
        VllmServer(tmp_path / "model", tmp_path / "server.log").start()
    with pytest.raises(UnmarkedCost, match="starts a SLURM cluster but is not marked slurm"):
        SlurmCluster(tmp_path / "slurm").start()
    assert list(tmp_path.iterdir()) == []


def test_a_start_for_the_tests_that_read_it_is_not_the_running_tests_and_the_check_comes_back():
    """A run started at the session's start for marked tests that read it later (the SLURM
    rehearsal) is not charged to whatever test is first; after it the first test is checked again."""
    from support.cost_markers import for_the_tests_that_read_it, refuse_unless_marked

    with for_the_tests_that_read_it():
        refuse_unless_marked(("slurm",), "a SLURM cluster")
    with pytest.raises(UnmarkedCost, match="starts a SLURM cluster but is not marked slurm"):
        refuse_unless_marked(("slurm",), "a SLURM cluster")


def test_a_session_run_is_started_at_the_start_only_for_selected_readers_that_run():
    """The session starts a whole run before its first test only where a selected test reads it
    (through any fixture) and is not skipped: the fast tier and a skipped SLURM module start nothing."""
    from support.background_runs import read_by_selected_tests

    class Item:
        def __init__(self, fixtures, skipped):
            self.fixturenames, self.skipped = fixtures, skipped

        def get_closest_marker(self, name):
            return object() if name == "skip" and self.skipped else None

    reader, skipped_reader, other = (Item(["cluster", "slurm_rehearsal"], False),
                                     Item(["cluster", "slurm_rehearsal"], True), Item(["tmp_path"], False))
    assert read_by_selected_tests([other, reader], "slurm_rehearsal")
    assert not read_by_selected_tests([other, skipped_reader], "slurm_rehearsal")
    assert not read_by_selected_tests([other], "demo_run")


def test_a_test_using_a_costly_fixture_without_its_marker_stops_the_session_at_collection(pytester):
    """A fixture tagged with ``costs`` (directly or through another fixture) needs its marker on
    every test that uses it; one unmarked user stops the session before any test runs."""
    pytester.makepyfile(test_reads_a_run="""
        import pytest
        from support.cost_markers import costs

        @pytest.fixture
        @costs("workflow", "slurm")
        def built_run(tmp_path):
            return tmp_path

        @pytest.fixture
        def table_of_the_run(built_run):
            return built_run

        def test_unmarked(table_of_the_run):
            pass

        @pytest.mark.workflow
        def test_marked(built_run):
            pass

        @pytest.mark.slurm
        def test_marked_for_another_cost_the_fixture_allows(table_of_the_run):
            pass
    """)
    result = pytester.runpytest_inprocess("-p", "support.cost_markers", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    assert "test_reads_a_run.py::test_unmarked uses fixture built_run but is not marked workflow or slurm" in errors
    assert "test_marked" not in errors


def test_no_test_starts_snakemake_but_through_the_one_runner():
    """Every Snakemake process of the tests is started by support/snakemake_runs.py."""
    runner = TESTS / "support" / "snakemake_runs.py"
    found = [f"{p.relative_to(REPO_ROOT)}: {m.group(0)}" for p in sorted(TESTS.rglob("*.py")) if p != runner
             for m in SNAKEMAKE_CALL.finditer(p.read_text())]
    assert found == []
    assert SNAKEMAKE_CALL.search(runner.read_text())
