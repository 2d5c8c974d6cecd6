"""The generation rules end to end (plan -> 2 generate shards -> gather -> parse) on synthetic evidence."""
from pathlib import Path

import pytest
import yaml

from evidence_ledger.config.layers import layered_config
from evidence_ledger.demo.tiny_models import TrainingExample, build_demo_model
from evidence_ledger.tables import read_table
from evidence_ledger.tables.generation import PARSED, REQUESTS, RESPONSES
from support.generation_world import claims, write_world
from support.snakemake_runs import run_snakemake

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    wd = tmp_path_factory.mktemp("wf")
    write_world(wd, 4)
    ex = [TrainingExample("fever", c["claim"], f"Person {i} was born somewhere.", c["label"])
          for i, c in enumerate(claims(12))]
    build_demo_model(wd / "models/tiny", "qwen3", ex, [e.claim for e in ex],
                     {"primary": {"A": "support", "B": "refute", "C": "nei"}}, {"enable_thinking": False},
                     steps=5, vocab_size=300)
    cfg = layered_config(REPO)
    cfg["data_root"] = str(REPO / cfg["data_root"])
    # the workflow's own files come from config/defaults.yaml (in this run's own layer a relative
    # path would resolve in its run directory)
    del cfg["wikicontradict"]["judge"]["fewshot_file"], cfg["accounting"]["reference_values"]
    cfg["models"]["qwen3"].update(local_dir=str(wd / "models/tiny"), build=None)
    cfg["generation"].update(models=["qwen3"], datasets=["fever"], shards=2, batch_size=16,
                             cache_dir=str(wd / "cache"))
    (wd / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))  # mapping order is meaningful
    return wd


def _snakemake(wd, *targets):
    return run_snakemake(wd, "--configfile", wd / "config.yaml", "--cores", "2", *targets, check=True)


def test_generation_rules_produce_one_parsed_row_per_request_and_a_failure_table(workdir):
    _snakemake(workdir, "results/generation/qwen3/fever/parsed.parquet")
    base = workdir / "results/generation/qwen3/fever"
    requests = read_table(base / "requests.parquet", REQUESTS)
    responses = read_table(base / "responses.parquet", RESPONSES)
    parsed = read_table(base / "parsed.parquet", PARSED)
    # 4 claims x (48 primary + 6 control sources (none, gold, swap and reversed per ordering
    # source) x 2 formats + 2 mappings x 2 sources) = 4 x 64
    assert requests.num_rows == 256
    assert responses.num_rows == len(set(requests.column("request_id").to_pylist()))
    assert parsed.num_rows == requests.num_rows
    assert set(parsed.column("format").to_pylist()) == {"codes", "labels", "codes:rotated", "codes:reversed"}
    assert {r["shard"] for r in requests.select(["shard"]).to_pylist()} == {0, 1}
    tsv = (base / "parse_failures.tsv").read_text().splitlines()
    assert tsv[0].split("\t")[:4] == ["model", "dataset", "format", "n"]
    assert sum(int(line.split("\t")[3]) for line in tsv[1:]) == 256
    assert set(responses.column("backend").to_pylist()) == {"transformers"}


def test_rerun_after_deleting_outputs_generates_nothing_new(workdir):
    cache_files = sorted((workdir / "cache/qwen3").glob("*.parquet"))
    for p in (workdir / "results/generation").rglob("responses*.parquet"):
        p.unlink()
    _snakemake(workdir, "results/generation/qwen3/fever/parsed.parquet")
    assert sorted((workdir / "cache/qwen3").glob("*.parquet")) == cache_files
