"""Generation backends chosen in config, and GPU jobs pinned to their devices on a workstation.

* a backend added without editing the package: the toy plugin of ``tests/support/toy_backend``
  registered under ``generation.backend_plugins`` runs the generate rule (two shards) and its
  name is in every response; the same class found through an installed package's entry point;
* with ``--resources gpu=2`` and fake devices ``CUDA_VISIBLE_DEVICES=5,7`` each GPU job sets its
  own ``CUDA_VISIBLE_DEVICES`` from the run's pool; with device 5 held elsewhere, both shards get 7;
* an unknown backend, a served model without its URL and an unset API-key variable are refused
  before any job, naming the key; a served model's jobs ask for no GPU and go to the CPU partition.
"""
import fcntl
import re
from pathlib import Path

import pytest
import yaml

from evidence_ledger.config.layers import layered_config

from support.hub_cache import stand_in_hub_cache
from evidence_ledger.generation.backends import load_backend, model_spec_from_config
from evidence_ledger.generation.backends.base import ENTRY_POINT_GROUP, UnknownBackend, backend_class
from evidence_ledger.tables import read_table
from evidence_ledger.tables.generation import PARSED, RESPONSES
from support.generation_world import write_world
from support.snakemake_runs import run_snakemake

REPO = Path(__file__).resolve().parents[2]
SUPPORT = REPO / "tests" / "support"
TOY = {"hub_id": "toy/model", "revision": "1" * 40, "dtype": "float32", "trust_remote_code": False,
       "local_dir": None, "build": None, "chat_template_kwargs": {}}


def _config(wd: Path, **models) -> Path:
    """A run layer of its own in ``wd`` (the demo's settings, the toy model as qwen3) and a
    Hugging Face cache holding the toy model's stand-in files, which the preflight looks for."""
    stand_in_hub_cache(wd / "hf-cache", [(TOY["hub_id"], TOY["revision"])])
    cfg = layered_config(REPO)
    cfg["data_root"] = str(REPO / cfg["data_root"])
    # the workflow's own files come from config/defaults.yaml (in this run's own layer a relative
    # path would resolve in its run directory)
    del cfg["wikicontradict"]["judge"]["fewshot_file"], cfg["accounting"]["reference_values"]
    cfg["models"]["qwen3"] = {**TOY, **models.get("qwen3", {})}
    cfg["generation"].update(models=["qwen3"], datasets=["fever"], shards=2, cache_dir=str(wd / "cache"),
                             backend_plugins={"toy": "toy_backend:ToyBackend"})
    path = wd / "config.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))  # mapping order is meaningful (sources)
    return path


def _snakemake(wd: Path, *args: str, env: dict | None = None):
    """The run of ``wd``'s config, the toy backend's folder on PYTHONPATH, the toy model's cache."""
    return run_snakemake(wd, "--configfile", wd / "config.yaml", "--cores", "2", *args, env=env,
                         pythonpath=[SUPPORT], hub_cache=wd / "hf-cache")


@pytest.mark.workflow
def test_a_config_registered_plugin_generates_and_each_gpu_job_gets_its_own_device(tmp_path):
    write_world(tmp_path, 3)
    _config(tmp_path, qwen3={"backend": "toy", "backend_options": {"answers": ["B", "A", "C"]}})
    locks = tmp_path / "locks"
    locks.mkdir()
    with open(locks / "gpu-5.lock", "a+") as held:  # device 5 busy with another run's job
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = _snakemake(tmp_path, "results/generation/qwen3/fever/parsed.parquet", "--resources", "gpu=2",
                          env={"CUDA_VISIBLE_DEVICES": "5,7", "EVIDENCE_LEDGER_GPU_LOCKS": str(locks)})
    assert proc.returncode == 0, proc.stderr[-4000:]
    base = tmp_path / "results/generation/qwen3/fever"
    responses = read_table(base / "responses.parquet", RESPONSES).to_pylist()
    assert {r["backend"] for r in responses} == {"toy"}
    assert {r["device"] for r in responses} == {"cpu (CUDA_VISIBLE_DEVICES=7)"}
    assert {r["raw_response"] for r in responses} <= {"A", "B", "C"} and "B" in {r["raw_response"] for r in responses}
    assert read_table(base / "parsed.parquet", PARSED).num_rows > 0
    for shard in (0, 1):
        log = (tmp_path / f"logs/generation/generate/qwen3_fever_{shard}.log").read_text()
        assert "GPU slot(s) ['7'] of the run's pool 5,7: CUDA_VISIBLE_DEVICES=7" in log


def test_an_installed_entry_point_names_a_backend(tmp_path, monkeypatch):
    dist = tmp_path / "toy_backend_dist-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-backend-dist\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\ntoy = toy_backend:ToyBackend\n")
    monkeypatch.syspath_prepend(str(SUPPORT))
    monkeypatch.syspath_prepend(str(tmp_path))
    backend = load_backend("toy", model_spec_from_config("m", TOY), answers=["C"])
    assert (backend.name, backend.identity()["backend"]) == ("toy", "toy")
    assert backend_class("toy_backend:ToyBackend") is type(backend)
    with pytest.raises(UnknownBackend, match="unknown generation backend 'no_such'"):
        backend_class("no_such")


@pytest.mark.workflow
def test_bad_backend_settings_are_refused_before_any_job(tmp_path):
    write_world(tmp_path, 1)
    _config(tmp_path, qwen3={"backend": "nope"})
    proc = _snakemake(tmp_path, "-n")
    assert proc.returncode != 0
    assert "models.qwen3.backend: unknown generation backend 'nope'" in proc.stdout + proc.stderr
    _config(tmp_path, qwen3={"backend": "openai", "server": {"api_key_env": "EVIDENCE_LEDGER_TEST_UNSET_KEY"}})
    proc = _snakemake(tmp_path, "-n", env={"EVIDENCE_LEDGER_TEST_UNSET_KEY": ""})
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "models.qwen3.server.base_url: model 'qwen3' generates through backend 'openai'" in out
    assert "models.qwen3.server.api_key_env: the environment variable EVIDENCE_LEDGER_TEST_UNSET_KEY is not set" in out


@pytest.mark.workflow
def test_a_served_models_jobs_ask_for_no_gpu_and_go_to_the_cpu_partition(tmp_path):
    write_world(tmp_path, 1)
    _config(tmp_path, qwen3={"backend": "openai", "server": {"base_url": "http://gpu-node-17:8000/v1"}})
    proc = _snakemake(tmp_path, "results/generation/qwen3/fever/parsed.parquet", "-n", "--default-resources",
                      "slurm_partition=cpu_part", "--config", "slurm_gpu_partition=gpu_part")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    jobs = re.findall(r"^rule generate:\n(?:    .*\n)*?    resources: (.*)$", proc.stdout + proc.stderr, re.M)
    assert len(jobs) == 2
    for resources in jobs:
        assert "gpu=0" in resources and "slurm_partition=cpu_part" in resources, resources
