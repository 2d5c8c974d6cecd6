"""A benchmark added without editing the registry module: the toy plugin of
``tests/support/toy_benchmark`` (registry entry + reader + scorer + prompts + ingest script)
is registered through config ``benchmark_plugins`` and the workflow plans its jobs.

* in process: the registry, the prompts and the indicator code serve the toy benchmark;
* ``snakemake -n`` of the demo config plus the toy benchmark plans ingest, families, sample,
  retrieval, evidence, generation and scoring jobs for ``toy`` (a dry run: nothing executes);
* a config naming an unregistered benchmark fails with a message naming it.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from evidence_ledger.config.layers import layered_config
from evidence_ledger import benchmark_registry as registry
from evidence_ledger.generation import prompts
from evidence_ledger.scoring import indicators
from support.snakemake_runs import run_snakemake

REPO = Path(__file__).resolve().parents[2]
SUPPORT = REPO / "tests" / "support"

TOY_CLAIMS = [
    {"id": 1, "claim": "The toy sky is green.", "label": "TRUE", "evidence": [["Sky", 0]]},
    {"id": 2, "claim": "The toy sea is dry.", "label": "FALSE", "evidence": [["Sea", 1]]},
    {"id": 3, "claim": "The toy moon sings.", "label": "UNKNOWN", "evidence": []},
]
TOY_PAGES = [
    {"page": "Sky", "sentences": ["The toy sky is green.", "It has no clouds."]},
    {"page": "Sea", "sentences": ["The toy sea is blue.", "The toy sea is wet."]},
]


@pytest.fixture
def toy_registered(monkeypatch):
    """The toy plugin loaded in this process; registry, templates and env restored afterwards."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_LOADED_PLUGINS", set())
    monkeypatch.setattr(prompts, "TEMPLATES", dict(prompts.TEMPLATES))
    monkeypatch.setenv(registry.PLUGINS_ENV, "")  # load_plugins writes it; undone afterwards
    monkeypatch.syspath_prepend(str(SUPPORT))
    for name in [m for m in sys.modules if m == "toy_benchmark" or m.startswith("toy_benchmark.")]:
        monkeypatch.delitem(sys.modules, name)
    registry.load_plugins(["toy_benchmark"])
    yield registry.get_benchmark("toy")
    for name in [m for m in sys.modules if m == "toy_benchmark" or m.startswith("toy_benchmark.")]:
        del sys.modules[name]


def test_builtin_benchmarks_keep_their_facts():
    assert registry.benchmark_names()[:3] == ("fever", "feverous", "scifact")
    assert registry.get_benchmark("fever").labels == ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
    assert registry.get_benchmark("scifact").verdict_labels == ("SUPPORT", "CONTRADICT")
    assert registry.get_benchmark("scifact").per_document and not registry.get_benchmark("feverous").per_document
    assert {b.name: b.corpus_key for b in registry.benchmarks()}["scifact"] == "corpus"
    with pytest.raises(ValueError, match="unknown benchmark 'toy'"):
        registry.get_benchmark("toy")


def test_toy_plugin_serves_registry_prompts_and_indicators(toy_registered):
    assert toy_registered.name in registry.dataset_wildcard_regex().split("|")
    assert os.environ[registry.PLUGINS_ENV] == "toy_benchmark"
    assert prompts.labels_for("toy") == ["TRUE", "FALSE", "UNKNOWN"]
    message = prompts.build_messages("toy", "codes", "A claim.", "", {"A": "support", "B": "refute", "C": "nei"})
    assert message[0]["content"].startswith("Is this toy claim true?")
    assert "C = UNKNOWN" in message[0]["content"]
    claim = {"claim_id": "1", "label": "TRUE", "evidence_groups": [["Sky::0"]], "gold_abstracts": []}
    assert indicators.evidence_eligible("toy", claim, "", ["Sea::0", "Sky::0"])
    assert not indicators.evidence_eligible("toy", claim, "", ["Sea::0"], max_evidence=1)
    assert indicators.answer_indicator("toy", claim, "", "true") == ("TRUE", True, True)
    with pytest.raises(ValueError, match="not one of"):
        indicators.answer_indicator("toy", claim, "", "SUPPORTS")


def test_toy_reader_writes_the_canonical_tables(toy_registered, tmp_path):
    ingest_toy = registry.benchmark_reader("toy")
    (tmp_path / "claims.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TOY_CLAIMS), encoding="utf-8")
    (tmp_path / "pages.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TOY_PAGES), encoding="utf-8")
    claims, units, docs = ingest_toy({"dev": tmp_path / "claims.jsonl"}, tmp_path / "pages.jsonl", "error")
    assert claims["dev"].column("evidence_groups").to_pylist() == [[["Sky::0"]], [["Sea::1"]], []]
    assert units.num_rows == 4 and docs.column("doc_id").to_pylist() == ["Sky", "Sea"]


def test_registering_a_different_description_under_a_taken_name_fails():
    fever = registry.get_benchmark("fever")
    with pytest.raises(ValueError, match="already registered"):
        registry.register_benchmark(registry.Benchmark(**{**fever.__dict__, "metric": "f1"}))


def toy_config(tmp_path: Path) -> Path:
    """The demo config plus the toy benchmark everywhere a Study 2 dataset is named; the data
    root is a copy of the demo data with the toy files added."""
    data = tmp_path / "data"
    shutil.copytree(REPO / "resources" / "demo", data)
    (data / "toy").mkdir()
    for name, records in (("claims_dev.jsonl", TOY_CLAIMS), ("claims_train.jsonl", TOY_CLAIMS),
                          ("pages.jsonl", TOY_PAGES)):
        (data / "toy" / name).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    cfg = layered_config(REPO)
    # the workflow's own files come from config/defaults.yaml (read first): a path copied into
    # this file would be this run's, resolved in its run directory
    del cfg["wikicontradict"]["judge"]["fewshot_file"], cfg["accounting"]["reference_values"]
    cfg["data_root"] = str(data)
    cfg["benchmark_plugins"] = ["toy_benchmark"]
    cfg["data"]["toy"] = {"claims": {"dev": "toy/claims_dev.jsonl", "train": "toy/claims_train.jsonl"},
                          "pages": "toy/pages.jsonl"}
    cfg["sampling"]["toy"] = {"split": "dev", "method": "all"}
    cfg["families"]["splits"]["toy"] = ["dev"]
    cfg["retrieval"]["datasets"].append("toy")
    cfg["generation"]["datasets"].append("toy")
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def snakemake(work: Path, configfile: Path, *args: str):
    """Snakemake on ``configfile`` in ``work``, the toy plugin's folder on PYTHONPATH and no plugin
    list inherited from this process (the workflow loads the config's own)."""
    work.mkdir(exist_ok=True)
    return run_snakemake(work, "--cores", "1", "--configfile", configfile, *args, pythonpath=[SUPPORT],
                         env={registry.PLUGINS_ENV: None})


def dry_run(tmp_path: Path, configfile: Path):
    return snakemake(tmp_path / "work", configfile, "-n")


@pytest.mark.workflow
def test_dry_run_plans_the_toy_benchmark_jobs(tmp_path):
    proc = dry_run(tmp_path, toy_config(tmp_path))
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    out = proc.stdout
    assert "rule ingest_toy:" in out
    for target in ("results/ingest/toy/claims_dev.parquet", "results/ingest/toy/units.parquet",
                   "results/families/toy/families.parquet", "results/sampling/toy/sample.parquet",
                   "results/retrieval/toy/retrieved.parquet", "results/evidence/toy/evidence.parquet",
                   "results/generation/qwen3/toy/requests.parquet", "results/generation/qwen3/toy/parsed.parquet",
                   "results/scoring/toy/evidence_indicators.parquet",
                   "results/scoring/qwen3/toy/answer_indicators.parquet"):
        assert target in out, f"{target} not planned"


@pytest.mark.workflow
def test_unregistered_benchmark_name_is_refused(tmp_path):
    configfile = toy_config(tmp_path)
    cfg = yaml.safe_load(configfile.read_text())
    cfg["benchmark_plugins"] = []
    configfile.write_text(yaml.safe_dump(cfg, sort_keys=False))
    proc = dry_run(tmp_path, configfile)
    assert proc.returncode != 0
    assert "not registered benchmarks" in proc.stderr + proc.stdout
    assert "'toy'" in proc.stderr + proc.stdout


@pytest.mark.workflow
def test_each_ingest_rule_reads_its_own_benchmark(tmp_path):
    """The ingest rules are made in one loop over the registry; each job must run with its own
    benchmark's files and reader (a script expression that read the loop variable once made
    every job ingest the last benchmark). Runs the four ingest jobs for real (seconds)."""
    configfile = toy_config(tmp_path)
    work = tmp_path / "work"
    targets = [f"results/ingest/{name}/units.parquet" for name in ("fever", "feverous", "scifact", "toy")]
    proc = snakemake(work, configfile, "--", *targets)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    for name in ("fever", "feverous", "scifact", "toy"):
        units = pq.read_table(work / "results" / "ingest" / name / "units.parquet")
        assert set(units.column("dataset").to_pylist()) == {name}
    toy_units = pq.read_table(work / "results" / "ingest" / "toy" / "units.parquet").column("unit_id").to_pylist()
    assert toy_units == ["Sky::0", "Sky::1", "Sea::0", "Sea::1"]


def test_toy_plugin_reaches_study2_accounting(toy_registered):
    """Requests, scoring and the Study 2 count panel read the toy benchmark's facts from the
    registry alone (metric, labels, unit of evaluation, scorer): no built-in table to extend."""
    import pandas as pd

    from evidence_ledger.accounting.panel import build_claim_panel, metric_for
    from evidence_ledger.generation.requests import unit_gold_label
    from evidence_ledger.vocabulary import INVALID

    assert metric_for("toy") == "strict"
    claims = [{"dataset": "toy", "claim_id": str(c["id"]), "claim": c["claim"], "label": c["label"],
               "evidence_groups": [[f"{p}::{s}" for p, s in c["evidence"]]] if c["evidence"] else [],
               "gold_abstracts": []} for c in TOY_CLAIMS]
    assert [unit_gold_label("toy", c, "") for c in claims] == ["TRUE", "FALSE", "UNKNOWN"]
    ordered = {"bm25": ["Sea::0", "Sky::0", "Sea::1"], "bge": ["Sky::0", "Sea::1"]}
    evidence = [{"dataset": "toy", "claim_id": c["claim_id"], "doc_id": "", "source": s, "budget": "short",
                 "scored_unit_ids": ids[:2], "unresolved": 0} for c in claims for s, ids in ordered.items()]
    answers = {"bm25": ["TRUE", "TRUE", INVALID], "bge": ["TRUE", "FALSE", "UNKNOWN"]}
    parsed = [{"model": "m", "dataset": "toy", "claim_id": c["claim_id"], "doc_id": "", "source": s,
               "budget": "short", "format": "labels", "replicate": 0, "strict_label": labels[i],
               "lenient_label": labels[i]} for s, labels in answers.items() for i, c in enumerate(claims)]
    ev_rows = pd.DataFrame(indicators.evidence_indicator_rows(claims, evidence, max_evidence=5))
    # bm25's first two units hold Sky::0 but not Sea::1; bge's hold both; UNKNOWN needs none
    assert ev_rows.set_index(["evidence_source", "claim_id"])["eligible"].to_dict() == {
        ("bge", "1"): True, ("bge", "2"): True, ("bge", "3"): True,
        ("bm25", "1"): True, ("bm25", "2"): False, ("bm25", "3"): True}
    ans_rows = pd.DataFrame(indicators.answer_indicator_rows(claims, parsed))
    relevant = pd.DataFrame(indicators.relevant_rows(claims))
    panel = build_claim_panel(ans_rows, ev_rows, relevant, dataset="toy", system="m", parser="strict",
                              formats=["labels"], sources=["bm25", "bge"], answer_budgets=["short"],
                              evidence_budgets=["short"], replicates=[0])
    assert panel.metric == "strict" and panel.den.sum() == 2 * 3
    # T_ab = correct answers under a x eligible evidence under b, over the 3 claims
    assert panel.num[:, 0, 0, :, 0, :, 0].sum(axis=0).tolist() == [[1, 1], [2, 3]]
