"""The generate rule through a real vLLM OpenAI server (the session's ``vllm_server`` on
127.0.0.1, serving the demo's tiny Qwen3 stand-in) and through the offline vLLM engine, on the same
requests (plan_requests on a small synthetic world, one shard):

* the served job's greedy answers are the offline engine's, request for request;
* the server killed mid-job (SIGKILL, as a lost node): the job fails naming the request it could
  not complete; the server restarted, the rerun sends only the requests without an answer, and its
  answers equal an uninterrupted served run's.
"""
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from evidence_ledger.config.layers import layered_config
from evidence_ledger.generation.cache import ResponseCache
from evidence_ledger.tables import read_table
from evidence_ledger.tables.generation import CACHE_ENTRIES, REQUESTS, RESPONSES
from support.generation_world import write_world
from support.cost_markers import costs
from support.hang_guard import HANG_GUARD_S
from support.snakemake_runs import run_snakemake, start_snakemake
from support.vllm_server import MAX_MODEL_LEN, SERVED_NAME

pytestmark = [pytest.mark.workflow, pytest.mark.vllm]

REPO = Path(__file__).resolve().parents[2]
TARGET = "results/generation/qwen3/fever/shards/responses_0.parquet"
JOB_LOG = "logs/generation/generate/qwen3_fever_0.log"


def _workdir(root: Path, model_dir: Path, server_url: str | None) -> Path:
    """A work directory with the synthetic world and a config generating with the offline vLLM
    engine (``server_url`` None) or through the server, one request at a time."""
    root.mkdir(parents=True)
    write_world(root, 4)
    cfg = layered_config(REPO)
    cfg["data_root"] = str(REPO / cfg["data_root"])
    # the workflow's own files come from config/defaults.yaml (in this run's own layer a relative
    # path would resolve in its run directory)
    del cfg["wikicontradict"]["judge"]["fewshot_file"], cfg["accounting"]["reference_values"]
    cfg["models"]["qwen3"].update(local_dir=str(model_dir), build=None)
    cfg["generation"].update(models=["qwen3"], datasets=["fever"], shards=1, cache_dir=str(root / "cache"),
                             backend="vllm", enable_prefix_caching=False,
                             vllm={"enforce_eager": True, "max_model_len": MAX_MODEL_LEN, "gpu_memory_utilization": 0.3})
    if server_url:
        cfg["models"]["qwen3"].update(backend="openai", server={
            "base_url": server_url, "served_model_name": SERVED_NAME, "concurrency": 1, "max_retries": 2,
            "retry_max_s": 60})
    (root / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))  # mapping order is meaningful
    return root


def _args(wd: Path) -> list[str]:
    return ["--configfile", str(wd / "config.yaml"), "--cores", "2", TARGET]


def _run(wd: Path) -> subprocess.CompletedProcess:
    return run_snakemake(wd, *_args(wd), env={"OMP_NUM_THREADS": "1"}, check=True)


def _answers(wd: Path) -> dict[str, str]:
    table = read_table(wd / TARGET, RESPONSES)
    return dict(zip(table.column("request_id").to_pylist(), table.column("raw_response").to_pylist()))


def _greedy_ids(wd: Path) -> set[str]:
    rows = read_table(wd / "results/generation/qwen3/fever/requests.parquet", REQUESTS).select(
        ["request_id", "temperature"]).to_pylist()
    return {r["request_id"] for r in rows if r["temperature"] == 0.0}


@pytest.fixture(scope="module")
@costs("workflow")
def served_run(vllm_server, tiny_served_model, tmp_path_factory) -> Path:
    """An uninterrupted served run of the generate rule."""
    wd = _workdir(tmp_path_factory.mktemp("served") / "run", tiny_served_model, vllm_server.base_url)
    _run(wd)
    return wd


def test_served_greedy_answers_equal_the_offline_engines(served_run, tiny_served_model, tmp_path):
    offline = _workdir(tmp_path / "offline", tiny_served_model, None)
    _run(offline)
    served, engine = _answers(served_run), _answers(offline)
    assert served.keys() == engine.keys()
    greedy = _greedy_ids(served_run)
    assert greedy and {rid: served[rid] for rid in greedy} == {rid: engine[rid] for rid in greedy}
    table = read_table(served_run / TARGET, RESPONSES).to_pylist()
    assert {(r["backend"], r["served_model"]) for r in table} == {("openai", SERVED_NAME)}
    assert all(r["system_fingerprint"] for r in table)
    assert {r["backend"] for r in read_table(offline / TARGET, RESPONSES).to_pylist()} == {"vllm"}


def test_a_server_killed_mid_job_fails_it_naming_the_request_and_the_rerun_resumes(
        served_run, vllm_server, tiny_served_model, tmp_path):
    wd = _workdir(tmp_path / "killed", tiny_served_model, vllm_server.base_url)
    journal = wd / "cache" / "qwen3" / "qwen3-fever-s0-000000.journal.jsonl"
    job = start_snakemake(wd, *_args(wd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={"OMP_NUM_THREADS": "1"})
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while job.poll() is None and time.monotonic() < deadline:
            if journal.exists() and journal.read_text().count("\n") >= 5:
                break
            time.sleep(0.05)
        assert job.poll() is None, "the job ended before the server could be killed:\n" + job.stdout.read()[-3000:]
        vllm_server.kill()
        output, _ = job.communicate(timeout=HANG_GUARD_S)
    finally:
        job.kill()
        if vllm_server.proc.poll() is not None:
            vllm_server.start()  # the same port: later tests (and the rerun) use it again
    assert job.returncode != 0
    log = (wd / JOB_LOG).read_text()
    failed = log.split("error: request ", 1)[1].split(" ", 1)[0]  # an expected error: one line
    assert failed in _answers(served_run), log[-3000:]  # a planned request, named by its request_id
    kept = journal.read_text().count("\n")
    assert kept >= 5 and "failed 3 times" in log

    _run(wd)
    total = len(_answers(served_run))
    assert f"{total} unique keys, {kept} cached, {total - kept} to generate" in (wd / JOB_LOG).read_text()
    assert _answers(wd) == _answers(served_run)
    cache = ResponseCache(wd / "cache" / "qwen3")
    rows = sum(read_table(path, CACHE_ENTRIES).num_rows for path in cache.shard_paths())
    assert rows == total and not cache.journal_paths()  # each answer kept once
