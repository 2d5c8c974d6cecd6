"""config/paper.yaml: the paper run's settings validate, dry-run and plan.

* the run's config (config/defaults.yaml + config/paper.yaml) validates against
  ``workflow/schemas/config.schema.yaml`` and carries the paper's numbers;
* the README's workstation command, dry (``snakemake -n --profile workflow/profiles/default
  --configfile config/paper.yaml --config data_root=DIR``), against a data tree in the paper's
  file layout (``python -m evidence_ledger rehearsal-data``) plans exactly the jobs the config
  implies (counts derived from the config here, plus a few counted by hand);
* ``python -m evidence_ledger plan --configfile config/paper.yaml`` prints request counts
  for both models x 3 datasets and a positive GPU-hour estimate.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
import yaml

from evidence_ledger.config.layers import layered_config

from support.hang_guard import HANG_GUARD_S
from support.rehearsal import job_stats

REPO = Path(__file__).resolve().parents[2]
PAPER = REPO / "config" / "paper.yaml"
SCHEMA = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
ENV = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false",
           HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO / "src"))


def paper_config() -> dict:
    """The paper run's config as the workflow builds it: defaults, then config/paper.yaml."""
    return layered_config(REPO, [PAPER])


@pytest.fixture(scope="module")
def placeholder(rehearsal_data):
    """(paper config with data_root -> the session's rehearsal data tree in the paper's layout,
    which holds stand-in files where README step 2 converts the verifier's pickle-only base model:
    a dry run loads no weights, but the preflight wants the model complete; its path)."""
    cfg = paper_config()
    cfg["data_root"] = str(rehearsal_data)
    return cfg, rehearsal_data


# --- expected jobs -------------------------------------------------------------------------


def expected_job_counts(cfg: dict) -> Counter:
    """Jobs ``snakemake -n`` must plan for ``cfg`` on an empty working directory, by rule."""
    on = cfg["studies"]
    data, gen, ret = cfg["data"], cfg["generation"], cfg["retrieval"]
    n = Counter()
    for d in ("fever", "feverous", "scifact"):
        if d in data:
            n[f"ingest_{d}"] = 1
    if on["wikicontradict"] and "wikicontradict" in data:
        n["ingest_wikicontradict"] = 1
    if on["diffgr"]:
        n["ingest_conflict_qa"] = len({d for d in ("nqcc", "tqacc") if d in data} | set(cfg["diffgr"]["datasets"]))
    for rule in ("index_corpus", "retrieve", "build_pools", "order_bm25", "order_bge", "assemble_evidence",
                 "evidence_diagnostics"):
        n[rule] = len(ret["datasets"])
    if ret["reranker"].get("build"):
        n["build_demo_reranker"] = 1
    n["build_demo_models"] = sum(1 for m in cfg["models"].values() if m.get("build"))
    if on["study2"]:
        pairs = len(gen["models"]) * len(gen["datasets"])
        n["sample_claims"] = len(cfg["sampling"])
        n["build_families"] = len(set(cfg["sampling"]) | set(gen["datasets"]))
        for rule in ("plan_requests", "gather_responses", "parse_responses", "score_answers"):
            n[rule] = pairs
        n["generate"] = pairs * gen["shards"]
        n["score_evidence"] = len(gen["datasets"])
        for rule in ("study2_accounting", "decision_labels", "study2_forest_plot", "claim_traces", "study2_controls",
                     "control_generations", "study2_answer_accuracy", "study2_parser_sensitivity",
                     "study2_endpoints", "design_tables", "study2_items"):
            n[rule] = 1
        n["study2_bootstrap"] = 3  # primary, exploratory, crossed
        n["generation_plan"] = 1
    if on["study1"]:
        ver = cfg["verifier"]
        providers = {source: files for spec in cfg["external"][ver["dataset"]].values()
                     if spec.get("answers", "files") == "verifier" for source, files in spec["sources"].items()}
        n["import_evidence_source"] = len(providers)
        n["export_provider_submissions"] = sum(1 for p in providers.values() if isinstance(p, dict))
        n["build_demo_verifier"] = 1 if ver.get("demo_model") else 0
        n["serialise_verifier_inputs"] = 2  # train (source 0) and dev (both sources)
        n["train_verifier"] = len(ver["checkpoint_seeds"])
        for rule in ("predict_verifier", "study1_indicators", "verifier_summary", "study1_accounting",
                     "study1_bootstrap", "study1_answer_metrics", "study1_items"):
            n[rule] = 1
    if on["wikicontradict"]:
        wc = cfg["wikicontradict"]
        for rule in ("wikicontradict_requests", "wikicontradict_generate", "wikicontradict_judge"):
            n[rule] = len(wc["models"])
        n["wikicontradict_judge_human"] = 1 if data["wikicontradict"].get("human_judgements") else 0
        n["wikicontradict_metrics"] = 1
    if on["diffgr"]:
        dg = cfg["diffgr"]
        n["diffgr_generate"] = len(dg["models"]) * len(dg["datasets"])
        n["diffgr_score"] = 1
        n["diffgr_score_files"] = 1 if dg.get("reader_run_files") else 0
    n["account_system"] = sum(1 for systems in cfg["external"].values() for spec in systems.values()
                              if spec.get("answers", "files") == "files")
    n["provenance"] = 1
    n["summary_page"] = 1
    n["ledger"] = 1
    n["items_page"] = 1
    n["all"] = 1
    return Counter({rule: count for rule, count in n.items() if count})


@pytest.fixture(scope="module")
def dry_run(paper_dry_run) -> str:
    """The README's workstation command, dry (the session's paper_dry_run: the paper file plus
    data_root on the command line, the paper's models in the cache, ``gpu_jobs=cpu``)."""
    return paper_dry_run.stdout


# --- tests ---------------------------------------------------------------------------------


def test_paper_config_validates_against_schema():
    jsonschema.validate(paper_config(), SCHEMA)


def test_paper_config_carries_the_seed_study_settings():
    cfg = paper_config()
    assert {m: cfg["models"][m]["hub_id"] for m in cfg["generation"]["models"]} == {
        "qwen3": "Qwen/Qwen3-8B", "llama31": "meta-llama/Llama-3.1-8B-Instruct"}
    assert cfg["retrieval"]["reranker"]["hub_id"] == "BAAI/bge-reranker-base"
    assert cfg["verifier"]["base_model"]["hub_id"] == "microsoft/deberta-large-mnli"
    for name, model in cfg["models"].items():
        assert model["local_dir"] is None and model["build"] is None, name
        assert model["dtype"] == "bfloat16" and model["trust_remote_code"] is False, name
    assert cfg["retrieval"]["reranker"]["local_dir"] is None and cfg["retrieval"]["reranker"]["build"] is None
    assert cfg["verifier"]["demo_model"] is None
    assert cfg["generation"]["backend"] == "vllm"
    samples = {d: s.get("n") for d, s in cfg["sampling"].items()}
    assert samples == {"fever": 2000, "feverous": 2000, "scifact": None}
    assert cfg["sampling"]["scifact"]["method"] == "all"
    assert cfg["sampling"]["feverous"]["exclude_reserved_families"] is True
    assert cfg["evidence"]["budgets"] == {"short": 256, "long": 1024}
    assert cfg["generation"]["seeds"] == [1103, 2207, 3301, 4409, 5519]
    assert cfg["verifier"]["examples_per_checkpoint"] == (
        cfg["verifier"]["final_update"] * cfg["verifier"]["batch_size"] * cfg["verifier"]["grad_accumulation"])
    boot = cfg["accounting"]["bootstrap"]
    assert (boot["primary"]["draws"], boot["exploratory"]["draws"], boot["crossed"]["draws"]) == (50000, 10**6, 10**6)
    assert cfg["accounting"]["study1"]["bootstrap"]["draws"] == 10000


def test_revisions_are_pinned_commits_or_marked_placeholders():
    """Models the demo also names keep its pinned commits; every other revision is a commit sha
    or a "PIN:" placeholder the user must replace (never null = the Hub's moving default)."""
    paper, demo = paper_config(), layered_config(REPO)
    hex40 = re.compile(r"^[0-9a-f]{40}$")
    revisions = {f"models.{n}": m["revision"] for n, m in paper["models"].items()}
    revisions["retrieval.reranker"] = paper["retrieval"]["reranker"]["revision"]
    revisions["verifier.base_model"] = paper["verifier"]["base_model"]["revision"]
    for key, revision in revisions.items():
        assert isinstance(revision, str) and (hex40.match(revision) or revision.startswith("PIN:")), key
    for name, model in demo["models"].items():
        assert revisions[f"models.{name}"] == model["revision"], name
    assert revisions["retrieval.reranker"] == demo["retrieval"]["reranker"]["revision"]


@pytest.mark.workflow
def test_dry_run_plans_the_jobs_the_config_implies(placeholder, dry_run):
    cfg, _ = placeholder
    counts, expected = job_stats(dry_run), expected_job_counts(cfg)
    assert counts.pop("total") == sum(expected.values())
    assert counts == expected


@pytest.mark.workflow
def test_dry_run_job_counts_by_hand(dry_run):
    counts = job_stats(dry_run)
    assert counts["generate"] == 6             # 2 models x 3 datasets x 1 shard (one per GPU)
    assert counts["plan_requests"] == 6        # 2 models x 3 datasets
    assert counts["train_verifier"] == 4       # 4 checkpoints
    assert counts["import_evidence_source"] == 2   # DCUF and UnifEE submissions
    assert counts["diffgr_generate"] == 4      # 2 readers x NQ-CC, TQA-CC
    assert counts["wikicontradict_judge"] == 2
    for rule in ("ingest_fever", "ingest_feverous", "ingest_scifact", "ingest_wikicontradict"):
        assert counts[rule] == 1, rule
    assert counts["ingest_conflict_qa"] == 2
    assert not {"build_demo_models", "build_demo_reranker", "build_demo_verifier"} & set(counts)
    # ingest 6, families + samples 6, retrieval 7 rules x 3, providers 2, generation 6 + 6 + 6 + 6,
    # scoring 3 + 6, verifier 2 + 4 + 1 + 1 + 1, accounting 8 + 7 post-hoc analyses + 2 item tables,
    # WikiContradict 8, DiffGR 5, report 5 (provenance, traces, summary page, ledger, item explorer), all 1
    assert counts["total"] == 114


@pytest.mark.workflow
def test_dry_run_reads_the_placeholder_files(placeholder, dry_run):
    """The planned jobs read the user's data directory, not the demo data."""
    _, root = placeholder
    assert str(root) in dry_run
    assert "resources/demo" not in dry_run


def test_planner_prints_requests_for_both_models_and_three_datasets(tmp_path):
    cfg = paper_config()
    proc = subprocess.run([sys.executable, "-m", "evidence_ledger", "plan", "--configfile", str(PAPER), "--json"],
                          capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads(proc.stdout)
    gen = cfg["generation"]
    primary = {(r["model"], r["dataset"]): r["requests"] for r in rows if r["condition"] == "primary"}
    assert set(primary) == {(m, d) for m in gen["models"] for d in gen["datasets"]}
    per_unit = len(gen["sources"]) * len(gen["budgets"]) * len(gen["formats"]) * (len(gen["seeds"]) + 1)
    for (model, dataset), count in primary.items():
        claims = cfg["sampling"][dataset].get("n") or gen["planner"]["population"][dataset]
        assert count == claims * gen["planner"].get("docs_per_claim", {}).get(dataset, 1) * per_unit, (model, dataset)
    assert primary[("qwen3", "fever")] == 96000      # 2,000 claims x 2 sources x 2 budgets x 2 formats x 6
    assert primary[("llama31", "scifact")] == 43200  # 300 claims x 3 abstracts x 48
    assert sum(r["gpu_seconds"] for r in rows) > 0

    text = subprocess.run([sys.executable, "-m", "evidence_ledger", "plan", "--configfile", str(PAPER)],
                          capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=HANG_GUARD_S)
    assert text.returncode == 0, text.stderr[-3000:]
    hours = re.search(r"estimated ([0-9.,]+) GPU hours", text.stdout)
    assert hours and float(hours.group(1).replace(",", "")) > 0


def test_config_readme_quotes_the_figures_the_planner_prints(tmp_path):
    """config/README.md's expected-load sentence carries the planner's own totals for paper.yaml."""
    text = subprocess.run([sys.executable, "-m", "evidence_ledger", "plan", "--configfile", str(PAPER)],
                          capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=HANG_GUARD_S)
    assert text.returncode == 0, text.stderr[-3000:]
    total = re.search(r"total: ([0-9,]+) requests \(([0-9,]+) control requests after reuse.*estimated ([0-9.]+) GPU hours",
                      text.stdout)
    rows = json.loads(subprocess.run([sys.executable, "-m", "evidence_ledger", "plan", "--configfile", str(PAPER),
                                      "--json"], capture_output=True, text=True, env=ENV, cwd=tmp_path,
                                     timeout=HANG_GUARD_S).stdout)
    primary = sum(r["requests"] for r in rows if r["condition"] == "primary")
    readme = " ".join((REPO / "config" / "README.md").read_text().split())
    assert total, text.stdout[-2000:]
    assert f"{primary:,} primary requests, {total.group(2)} control requests after reuse" in readme
    assert f"about {total.group(3)} GPU hours" in readme
    study2 = re.search(r"Study 2 primary: .*?\(([0-9.]+)% from the prefix cache\).*about ([0-9.]+) GPU hours "
                       r"\(compute floor ([0-9.]+)\)", text.stdout)
    assert study2, text.stdout[-2000:]
    assert (f"the Study 2 primary requests take about {study2.group(2)} GPU hours (compute floor {study2.group(3)}): "
            f"{study2.group(1)}% of their prompt tokens come from the prefix cache") in readme
    assert float(study2.group(2)) <= 1.0  # the Study 2 primary estimate fits one H200-hour


def test_planner_refuses_a_config_the_workflow_would_refuse(tmp_path):
    """The planner validates the config like the workflow: a short budget above the long one (which
    flips every context effect) is an error naming both keys, not a negative GPU estimate."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("evidence: {budgets: {short: 500, long: 10}}\n")
    proc = subprocess.run([sys.executable, "-m", "evidence_ledger", "plan", "--configfile", str(PAPER), str(bad)],
                          capture_output=True, text=True, env=ENV, cwd=REPO, timeout=HANG_GUARD_S)
    assert proc.returncode != 0
    assert "evidence.budgets.short" in proc.stderr and "evidence.budgets.long" in proc.stderr
