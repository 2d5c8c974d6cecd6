"""config/paper.yaml: the seed study's settings validate, dry-run and plan.

* the file validates against ``workflow/schemas/config.schema.yaml`` and carries the paper's
  numbers where the schema has a key for them;
* a directory of small placeholder files in the official release formats, written at every
  path the config names (a few records each, cut from the embedded demo so gold evidence
  resolves), passes the project's own readers;
* ``snakemake -n`` of the paper config against that directory plans exactly the jobs the
  config implies (counts derived from the config here, plus a few counted by hand);
* ``python -m evidence_ledger plan --configfile config/paper.yaml`` prints request counts
  for both models x 3 datasets and a positive GPU-hour estimate.
"""
from __future__ import annotations

import copy
import csv
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from contextlib import closing
from pathlib import Path

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
PAPER = REPO / "config" / "paper.yaml"
SCHEMA = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
DEMO = REPO / "resources" / "demo"
RECORDS_PER_FILE = 4
ENV = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false",
           HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO / "src"))

# demo file that supplies the records of each configured split
DEMO_CLAIMS = {
    "fever": {"dev": "fever/paper_dev.jsonl", "train": "fever/train.jsonl"},
    "feverous": {"dev": "feverous/dev.jsonl", "train": "feverous/train.jsonl", "pool": "feverous/pool.jsonl"},
    "scifact": {"dev": "scifact/claims_dev.jsonl", "train": "scifact/claims_train.jsonl"},
}


def paper_config() -> dict:
    return yaml.safe_load(PAPER.read_text())


# --- placeholder data ----------------------------------------------------------------------


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def first_claims(dataset: str, split: str) -> list[dict]:
    """The first few demo claims of a split (FEVEROUS: after the empty header record), verifiable
    ones first so the placeholder corpora hold some gold evidence."""
    records = jsonl(DEMO / DEMO_CLAIMS[dataset][split])
    if dataset == "feverous":
        records = records[1:]
    evidenced = [r for r in records if r.get("evidence") and r.get("label") != "NOT ENOUGH INFO"]
    others = [r for r in records if r not in evidenced]
    return evidenced[: RECORDS_PER_FILE - 1] + others[:1]


def fever_pages(claims: list[dict]) -> set[str]:
    return {item[2] for c in claims for group in c["evidence"] for item in group if item[2] is not None}


def feverous_ids(claims: list[dict]) -> list[str]:
    ids = []
    for c in claims:
        for ev in c["evidence"]:
            ids += ev["content"]
            for ctx in ev["context"].values():
                ids += ctx
    return ids


def scifact_docs(claims: list[dict]) -> set[int]:
    return {int(d) for c in claims for d in c["evidence"]} | {int(d) for c in claims for d in c.get("cited_doc_ids", [])}


def provider_splits(cfg: dict) -> list[str]:
    """``evidence.provider_split`` as a list (one split or several)."""
    splits = cfg["evidence"]["provider_split"]
    return [splits] if isinstance(splits, str) else list(splits)


def build_placeholder_data(cfg: dict, root: Path) -> dict:
    """Write a few records in the official format at every path ``cfg`` names under
    ``data_root`` (resolved to ``root``); return ``{dataset: {split: [claim ids]}}``."""
    data = cfg["data"]
    claim_ids: dict[str, dict[str, list[str]]] = {}

    def out(rel: str) -> Path:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    if "fever" in data:
        section, all_claims = data["fever"], []
        for split, rel in section["claims"].items():
            claims = first_claims("fever", split)
            write_jsonl(out(rel), claims)
            all_claims += claims
            claim_ids.setdefault("fever", {})[split] = [str(c["id"]) for c in claims]
        if section.get("wiki"):
            pages = fever_pages(all_claims)
            demo_pages = [p for f in sorted((DEMO / "fever" / "wiki-pages").glob("*.jsonl")) for p in jsonl(f)]
            keep = [p for p in demo_pages if p["id"] in pages] + [p for p in demo_pages if p["id"] not in pages][:2]
            write_jsonl(out(section["wiki"]) / "wiki-001.jsonl", keep)

    if "feverous" in data:
        section, all_claims = data["feverous"], []
        header = jsonl(DEMO / "feverous" / "dev.jsonl")[0]
        for split, rel in section["claims"].items():
            claims = first_claims("feverous", split)
            write_jsonl(out(rel), [header] + claims)
            all_claims += claims
            claim_ids.setdefault("feverous", {})[split] = [str(c["id"]) for c in claims]
        if section.get("wiki"):
            ids = feverous_ids(all_claims)
            with closing(sqlite3.connect(DEMO / "feverous" / "feverous_wikiv1.db")) as src:
                pages = src.execute("SELECT id, data FROM wiki ORDER BY id").fetchall()
            keep = [(pid, body) for pid, body in pages if any(i.startswith(pid + "_") for i in ids)]
            keep += [(pid, body) for pid, body in pages if (pid, body) not in keep][:2]
            with closing(sqlite3.connect(out(section["wiki"]))) as db, db:
                db.execute("CREATE TABLE wiki (id TEXT PRIMARY KEY, data TEXT)")
                db.executemany("INSERT INTO wiki VALUES (?, ?)", keep)
        if section.get("reserved_ids"):
            pool = claim_ids["feverous"].get("pool") or next(iter(claim_ids["feverous"].values()))
            out(section["reserved_ids"]).write_text(f"# reserved claim ids, one a line\n{pool[0]}\n")

    if "scifact" in data:
        section, all_claims = data["scifact"], []
        for split, rel in section["claims"].items():
            claims = first_claims("scifact", split)
            write_jsonl(out(rel), claims)
            all_claims += claims
            claim_ids.setdefault("scifact", {})[split] = [str(c["id"]) for c in claims]
        if section.get("corpus"):
            docs = scifact_docs(all_claims)
            corpus = jsonl(DEMO / "scifact" / "corpus.jsonl")
            keep = [d for d in corpus if d["doc_id"] in docs] + [d for d in corpus if d["doc_id"] not in docs][:3]
            write_jsonl(out(section["corpus"]), keep)

    if "wikicontradict" in data:
        section = data["wikicontradict"]
        with open(DEMO / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv", encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            rows = [r for _, r in zip(range(RECORDS_PER_FILE), reader)]
            fields = reader.fieldnames
        with open(out(section["rag_qa_csv"]), "w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        if section.get("full_json"):
            a, b = section.get("standalone_fields", ["paragraph_A_clean", "paragraph_B_clean"])
            out(section["full_json"]).write_text(json.dumps(
                [{"question_ID": r["question_ID"], a: r["context1"], b: r["context2"]} for r in rows]))
        if section.get("human_judgements"):
            ids = {int(r["question_ID"]) for r in rows}
            human = [h for h in jsonl(DEMO / "wikicontradict" / "human_judgements.jsonl") if h["question_ID"] in ids]
            write_jsonl(out(section["human_judgements"]), human or jsonl(DEMO / "wikicontradict" / "human_judgements.jsonl")[:2])

    for dataset in ("nqcc", "tqacc"):
        if dataset in data:
            write_jsonl(out(data[dataset]["records"]), jsonl(DEMO / "conflict_qa" / f"{dataset}.jsonl")[:RECORDS_PER_FILE])

    for dataset, providers in (cfg["evidence"].get("providers") or {}).items():
        for spec in providers.values():
            if spec.get("file"):
                claims = [c for split in provider_splits(cfg) for c in first_claims(dataset, split)]
                lines = [{"id": c["id"], "predicted_evidence": feverous_ids([c])[:30]} for c in claims]
                write_jsonl(out(spec["file"]), lines)

    runs = {"hybrid": "hybrid", "generated": "generated_only", "retrieved": "retrieved_only", "closed_book": "closed_book"}
    for fs in cfg["diffgr"].get("reader_run_files") or []:
        for key, stem in runs.items():
            write_jsonl(out(fs[key]), jsonl(DEMO / "conflict_qa" / "reader_runs" / f"{stem}.jsonl")[:RECORDS_PER_FILE])
    return claim_ids


@pytest.fixture(scope="module")
def placeholder(tmp_path_factory):
    """(config with data_root -> placeholder directory, its path, the claim ids written)."""
    root = tmp_path_factory.mktemp("paper_data")
    cfg = paper_config()
    claim_ids = build_placeholder_data(cfg, root)
    cfg = copy.deepcopy(cfg)
    cfg["data_root"] = str(root)
    return cfg, root, claim_ids


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
                     "study2_endpoints", "design_tables"):
            n[rule] = 1
        n["study2_bootstrap"] = 3  # primary, exploratory, crossed
    if on["study1"]:
        ver = cfg["verifier"]
        providers = cfg["evidence"]["providers"][ver["dataset"]]
        n["import_evidence_source"] = len(providers)
        n["export_provider_submissions"] = sum(1 for p in providers.values() if p.get("export"))
        n["build_demo_verifier"] = 1 if ver.get("demo_model") else 0
        n["serialise_verifier_inputs"] = 2  # train (source 0) and dev (both sources)
        n["train_verifier"] = len(ver["checkpoint_seeds"])
        for rule in ("predict_verifier", "study1_indicators", "verifier_summary", "study1_accounting",
                     "study1_bootstrap", "study1_answer_metrics"):
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
    n["provenance"] = 1
    n["summary_page"] = 1
    n["all"] = 1
    return Counter({rule: count for rule, count in n.items() if count})


def job_stats(stdout: str) -> Counter:
    """The first "Job stats" table of a dry run: rule -> count, plus its ``total`` row."""
    counts, in_table = Counter(), False
    for line in stdout.splitlines():
        if line.startswith("job") and "count" in line:
            in_table = True
            continue
        if in_table:
            if line.startswith("total"):
                counts["total"] = int(line.split()[-1])
                break
            match = re.match(r"^(\w+)\s+(\d+)$", line.strip())
            if match:
                counts[match.group(1)] = int(match.group(2))
    return counts


@pytest.fixture(scope="module")
def dry_run(placeholder, tmp_path_factory):
    cfg, _, _ = placeholder
    work = tmp_path_factory.mktemp("paper_work")
    configfile = work.parent / f"{work.name}_paper.yaml"
    configfile.write_text(yaml.safe_dump(cfg, sort_keys=False))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "8", "--snakefile", str(REPO / "Snakefile"),
         "--directory", str(work), "--configfile", str(configfile)],
        capture_output=True, text=True, env=ENV, timeout=300,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    return proc.stdout


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


DEMO_ONLY_KEYS = {"generation.demo_models"}  # settings of the locally built demo models


def test_paper_config_sets_every_key_the_demo_sets():
    """Every section and second-level key of config.yaml is set in paper.yaml too (so a new
    stage setting is not silently left to a default in the paper run)."""
    paper, demo = paper_config(), yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    assert set(paper) == set(demo)
    missing = [f"{section}.{key}" for section, body in demo.items() if isinstance(body, dict)
               for key in body if key not in paper[section] and f"{section}.{key}" not in DEMO_ONLY_KEYS]
    assert not missing, f"set in config/config.yaml but not in config/paper.yaml: {missing}"


def test_revisions_are_pinned_commits_or_marked_placeholders():
    """Models the demo also names keep its pinned commits; every other revision is a commit sha
    or a "PIN:" placeholder the user must replace (never null = the Hub's moving default)."""
    paper, demo = paper_config(), yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    hex40 = re.compile(r"^[0-9a-f]{40}$")
    revisions = {f"models.{n}": m["revision"] for n, m in paper["models"].items()}
    revisions["retrieval.reranker"] = paper["retrieval"]["reranker"]["revision"]
    revisions["verifier.base_model"] = paper["verifier"]["base_model"]["revision"]
    for key, revision in revisions.items():
        assert isinstance(revision, str) and (hex40.match(revision) or revision.startswith("PIN:")), key
    for name, model in demo["models"].items():
        assert revisions[f"models.{name}"] == model["revision"], name
    assert revisions["retrieval.reranker"] == demo["retrieval"]["reranker"]["revision"]


def test_placeholder_files_pass_the_readers(placeholder):
    from evidence_ledger.conflict.wikicontradict_metrics import load_human_labels
    from evidence_ledger.datasets.conflict_qa import read_conflict_qa
    from evidence_ledger.datasets.fever import ingest_fever
    from evidence_ledger.datasets.feverous import ingest_feverous, read_id_list
    from evidence_ledger.datasets.scifact import ingest_scifact
    from evidence_ledger.datasets.wikicontradict import read_wikicontradict
    from evidence_ledger.evidence.providers import read_submission

    cfg, root, claim_ids = placeholder
    data = cfg["data"]

    def split_paths(dataset):
        return {split: root / rel for split, rel in data[dataset]["claims"].items()}

    for dataset, ingest, corpus_key in (("fever", ingest_fever, "wiki"), ("feverous", ingest_feverous, "wiki"),
                                        ("scifact", ingest_scifact, "corpus")):
        claims, units, docs = ingest(split_paths(dataset), root / data[dataset][corpus_key], "error")
        assert {s: [str(i) for i in t.column("claim_id").to_pylist()] for s, t in claims.items()} == claim_ids[dataset]
        assert units.num_rows > 0 and docs.num_rows > 0, dataset
    reserved = read_id_list(root / data["feverous"]["reserved_ids"])
    assert reserved == claim_ids["feverous"]["pool"][:1]
    assert read_wikicontradict(root / data["wikicontradict"]["rag_qa_csv"]).num_rows == RECORDS_PER_FILE
    assert len(load_human_labels(root / data["wikicontradict"]["human_judgements"])) > 0
    for dataset in cfg["diffgr"]["datasets"]:
        assert read_conflict_qa(root / data[dataset]["records"], dataset).num_rows == RECORDS_PER_FILE
    split_ids = {i for split in provider_splits(cfg) for i in claim_ids["feverous"][split]}
    for name, spec in cfg["evidence"]["providers"]["feverous"].items():
        submission = read_submission(root / spec["file"], split_ids)
        assert set(submission) == split_ids and all(submission.values()), name


def test_dry_run_plans_the_jobs_the_config_implies(placeholder, dry_run):
    cfg, _, _ = placeholder
    counts, expected = job_stats(dry_run), expected_job_counts(cfg)
    assert counts.pop("total") == sum(expected.values())
    assert counts == expected


def test_dry_run_job_counts_by_hand(dry_run):
    counts = job_stats(dry_run)
    assert counts["generate"] == 24            # 2 models x 3 datasets x 4 shards
    assert counts["plan_requests"] == 6        # 2 models x 3 datasets
    assert counts["train_verifier"] == 4       # 4 checkpoints
    assert counts["import_evidence_source"] == 2   # DCUF and UnifEE submissions
    assert counts["diffgr_generate"] == 4      # 2 readers x NQ-CC, TQA-CC
    assert counts["wikicontradict_judge"] == 2
    for rule in ("ingest_fever", "ingest_feverous", "ingest_scifact", "ingest_wikicontradict"):
        assert counts[rule] == 1, rule
    assert counts["ingest_conflict_qa"] == 2
    assert not {"build_demo_models", "build_demo_reranker", "build_demo_verifier"} & set(counts)
    # ingest 6, families + samples 6, retrieval 7 rules x 3, providers 2, generation 6 + 24 + 6 + 6,
    # scoring 3 + 6, verifier 2 + 4 + 1 + 1 + 1, accounting 8 + 7 analyses (issue 15), WikiContradict 8,
    # DiffGR 5, report 3, all 1
    assert counts["total"] == 127


def test_dry_run_reads_the_placeholder_files(placeholder, dry_run):
    """The planned jobs read the user's data directory, not the demo data."""
    _, root, _ = placeholder
    assert str(root) in dry_run
    assert "resources/demo" not in dry_run


def test_planner_prints_requests_for_both_models_and_three_datasets(tmp_path):
    cfg = paper_config()
    proc = subprocess.run([sys.executable, "-m", "evidence_ledger", "plan", "--configfile", str(PAPER), "--json"],
                          capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=120)
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
                          capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=120)
    assert text.returncode == 0, text.stderr[-3000:]
    hours = re.search(r"estimated ([0-9.,]+) GPU hours", text.stdout)
    assert hours and float(hours.group(1).replace(",", "")) > 0
