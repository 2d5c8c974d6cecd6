"""``plan`` and ``check`` for the paper configuration from tokenizers alone: a Hugging Face cache
whose snapshots of Qwen/Qwen3-8B and meta-llama/Llama-3.1-8B-Instruct (at the paper's revisions)
hold the real tokenizer and config.json but no weights, over the rehearsal data tree.

The commands run in-process (``python -m evidence_ledger``'s ``main``) on the ``tree`` fixture of
this folder and one cache for the module, into which the real tokenizers are copied from the
shared folder (support/tokenizer_snapshots.py); the tests skip, saying so, where it is absent.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidence_ledger.__main__ import main
from evidence_ledger.benchmark_registry import get_benchmark
from evidence_ledger.config.layers import layered_config
from evidence_ledger.commands import plan as plan_command
from evidence_ledger.run.checks.context import FAIL, NOTE
from evidence_ledger.run.preflight import command_line_run, run_checks

from support.paths import REPO_ROOT
from support.preflight_runs import PAPER, checks
from support.tokenizer_snapshots import TOKENIZER_FOLDERS, real_tokenizers, tokenizer_only_hub_cache

PAPER_CONFIG = layered_config(REPO_ROOT, [PAPER])
QWEN_FETCH = "hf download Qwen/Qwen3-8B --revision b968826d9c46dd6066d109eabc6255188de91218"
LLAMA_FETCH = "hf download meta-llama/Llama-3.1-8B-Instruct --revision 0e9e39f249a16976918f6564b8830bc894c89659"
N_CLAIMS = 3  # claims of the FEVER sample whose evidence the exact test assembles


def _plan(*args: str, capsys) -> str:
    assert main(["plan", "--configfile", PAPER, *args]) == 0
    return capsys.readouterr().out


def test_plan_from_tokenizer_snapshots_says_so_and_prints_upper_bounds_and_the_fit(tree, hub, tmp_path, capsys):
    """Before any stage has run, the paper plan counts from the config (upper bounds), names the
    models planned from tokenizers only with the command fetching their weights, and takes the
    GPU fit from each snapshot's config.json (Qwen3-8B: 8,190,735,360 parameters from its shape,
    so 722,375 tokens of KV cache on one H200, where the Hub page's 8.19e9 gives 722,384)."""
    out = _plan("--config", f"data_root={tree}", "generation={datasets: [fever]}", "--directory", str(tmp_path),
                capsys=capsys)
    first = out.splitlines()[0]
    assert first.startswith("planned from tokenizers only: models.qwen3, models.llama31 have config.json and "
                            "tokenizer files here but no weights")
    assert first.endswith(f"the generate jobs need the weights: {QWEN_FETCH}; {LLAMA_FETCH}")
    assert "upper bound: some datasets counted from the config" in out
    assert "fever     primary                  config" in out
    fit = [line.split() for line in out.splitlines() if line.startswith("generate ")]
    assert [(row[1], row[3], row[5]) for row in fit] == [("models.qwen3", "16.4", "722,375"),
                                                         ("models.llama31", "16.1", "815,120")]


def test_plan_counts_answers_with_the_real_tokenizers(tree, hub, tmp_path, capsys, direct):
    """Output tokens of a labels answer are the benchmark's labels under the model's own
    tokenizer (plus the end-of-turn token), a codes answer one letter plus that token."""
    rows = json.loads(_plan("--config", f"data_root={tree}", "generation={datasets: [fever]}", "--directory",
                            str(tmp_path), "--json", capsys=capsys))
    labels = get_benchmark("fever").labels
    for model, tok in direct.items():
        label_tokens = sum(len(tok(x, add_special_tokens=False)["input_ids"]) for x in labels) / len(labels) + 1
        by = {r["condition"]: r for r in rows if r["model"] == model}
        assert by["code_mapping:rotated"]["output_tokens"] == 2 * by["code_mapping:rotated"]["requests"]
        primary = by["primary"]  # codes and labels, in equal numbers
        assert primary["output_tokens"] == round(primary["requests"] * (2 + label_tokens) / 2)
        assert label_tokens > 2  # "NOT ENOUGH INFO" is several tokens: not the letters' count


def test_check_names_the_weights_left_to_fetch_and_lets_the_stages_before_generation_through(tree, hub):
    """A run that loads the generation models is refused, each line naming the weights left to
    fetch and the command; a run --until assemble_evidence is let through with a note, and the
    models only later stages load are said to be left unchecked."""
    failed = {c.text.split(":")[0]: c.text for c in checks(f"data_root={tree}", files=(PAPER,)) if c.status == FAIL}
    assert failed["models.qwen3"].endswith(f"its weights are left to fetch, and this run's jobs load them: fetch "
                                           f"them with `{QWEN_FETCH}`")
    assert "config and tokenizer only, no weights" in failed["models.llama31"] and LLAMA_FETCH in failed["models.llama31"]

    until = run_checks(command_line_run([PAPER], [f"data_root={tree}"], REPO_ROOT, until=["assemble_evidence"]))
    models = [c for c in until if c.area == "models"]
    assert [(c.status, c.text.split(":")[0]) for c in models if c.text.startswith("models.")] == [
        (NOTE, "models.llama3_70b, verifier.base_model"), (NOTE, "models.qwen3"), (NOTE, "models.llama31")]
    assert "this run (--until assemble_evidence) loads no weights of it" in models[1].text
    generate = run_checks(command_line_run([PAPER], [f"data_root={tree}"], REPO_ROOT, until=["generate"]))
    assert {c.text.split(":")[0] for c in generate if c.status == FAIL} >= {"models.qwen3", "models.llama31"}


def test_check_loads_the_tokenizer_it_vouches_for(tree, snapshots, tmp_path, monkeypatch):
    """A tokenizer-only snapshot whose tokenizer.json is damaged is refused by ``check`` (which
    says such a snapshot is enough for ``plan``), naming the model, not passed on to ``plan``."""
    import huggingface_hub.constants

    damaged = Path(shutil.copytree(snapshots, tmp_path / "hf-cache"))
    qwen = next(damaged.glob("models--Qwen--Qwen3-8B/snapshots/*"))
    (qwen / "tokenizer.json").write_text('{"version": "1.0", "model": {"type": "BPE", "vocab"', encoding="utf-8")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(damaged))
    until = run_checks(command_line_run([PAPER], [f"data_root={tree}"], REPO_ROOT, until=["assemble_evidence"]))
    failed = [c.text for c in until if c.status == FAIL and c.text.startswith("models.")]
    assert len(failed) == 1 and failed[0].startswith("models.qwen3: Qwen/Qwen3-8B@")
    assert "config and tokenizer only, no weights, and its tokenizer does not load (" in failed[0]
    assert [c.status for c in until if c.text.startswith("models.llama31")] == [NOTE]


def _fever_run_results(tree: Path, run_dir: Path, tokenizers: dict) -> tuple[list[dict], list[dict]]:
    """The first N_CLAIMS claims of the tree's FEVER dev file as the paper config's sample, and
    their bm25 / bge / none evidence assembled under the budget tokenizers (as sample_claims and
    assemble_evidence write them, under ``run_dir/results``)."""
    from evidence_ledger.evidence.budget import assemble_budgeted
    from evidence_ledger.sampling.sample import summary_table
    from evidence_ledger.tables import write_table
    from evidence_ledger.tables.evidence import EVIDENCE
    from evidence_ledger.tables.ingest import CLAIMS

    claims_file = tree / "fever" / "shared_task_dev.jsonl"
    records = [json.loads(line) for line in claims_file.read_text().splitlines()[:N_CLAIMS]]
    claims = [{"dataset": "fever", "claim_id": str(r["id"]), "claim": r["claim"], "label": r["label"],
               "evidence_groups": [], "gold_abstracts": [], "cited_doc_ids": [], "source_file": str(claims_file),
               "source_line": i + 1, "unresolved_ids": []} for i, r in enumerate(records)]
    sampling = run_dir / "results/sampling/fever"
    write_table(CLAIMS.from_rows(claims), sampling / "sample.parquet", CLAIMS)
    settings = PAPER_CONFIG["sampling"]["fever"]
    summary_table({"dataset": "fever", "method": settings["method"], "salt": settings["salt"], "population": 100,
                   "requested": settings["n"], "selected": N_CLAIMS}).to_csv(
        sampling / "sample_summary.tsv", sep="\t", index=False)
    pages = [json.loads(line) for line in (tree / "fever/wiki-pages/wiki-001.jsonl").read_text().splitlines()]
    sentences = [s.split("\t", 1)[1] for p in pages for s in p["lines"].splitlines() if "\t" in s]
    evidence = []
    for i, claim in enumerate(claims):
        lines = sentences[i * 7: i * 7 + 40]
        for source, ordered in (("bm25", lines), ("bge", lines[::-1])):
            for budget, got in assemble_budgeted(ordered, tokenizers, PAPER_CONFIG["evidence"]["budgets"]).items():
                evidence.append({"source": source, "budget": budget, "visible_text": got["text"],
                                 "tokens": got["tokens"], "fits": got["n_units"] > 0, "claim_id": claim["claim_id"]})
        evidence += [{"source": "none", "budget": b, "visible_text": "", "tokens": {t: 0 for t in tokenizers},
                      "fits": True, "claim_id": claim["claim_id"]} for b in ("short", "long")]
    rows = [{"dataset": "fever", "claim_id": e["claim_id"], "doc_id": "", "source": e["source"],
             "budget": e["budget"], "visible_text": e["visible_text"], "fits_budget": e["fits"],
             "visible_unit_ids": [], "tokens_by_tokenizer": list(e["tokens"].items()), "scored_unit_ids": [],
             "unresolved": 0, "submitted_unit_ids": None} for e in evidence]
    write_table(EVIDENCE.from_rows(rows), run_dir / "results/evidence/fever/evidence.parquet", EVIDENCE)
    return claims, rows


def test_exact_counts_equal_the_prompts_rendered_with_the_real_chat_templates(tree, hub, tmp_path, capsys, direct):
    """With evidence assembled under the snapshots' tokenizers (loaded as the evidence stage
    loads them), ``plan --exact`` counts every distinct request's prompt exactly: the sum per
    model equals the real chat template applied to each prompt (Qwen3 without thinking) and
    tokenized by the real tokenizer."""
    from evidence_ledger.evidence.budget import load_tokenizer
    from evidence_ledger.generation.requests import plan_requests

    models = PAPER_CONFIG["models"]
    budget_tokenizers = {m: load_tokenizer(models[m]["hub_id"], models[m]["revision"]) for m in ("qwen3", "llama31")}
    claims, evidence = _fever_run_results(tree, tmp_path, budget_tokenizers)
    out = _plan("--config", f"data_root={tree}", "generation={datasets: [fever]}", "--directory", str(tmp_path),
                "--json", "--exact", capsys=capsys)
    rows = [r for r in json.loads(out) if r["condition"] != "model_load"]
    assert {(r["basis"], r["exact"]) for r in rows} == {("evidence", True)}
    for model in ("qwen3", "llama31"):
        table, _ = plan_requests(model, "fever", claims, evidence, PAPER_CONFIG["generation"])
        distinct = {r["request_id"]: r["messages"] for r in table.to_pylist()}
        counted = sum(len(direct[model].apply_chat_template(m, tokenize=True, add_generation_prompt=True,
                                                 **models[model]["chat_template_kwargs"])["input_ids"])
                     for m in distinct.values())
        planned = [r for r in rows if r["model"] == model]
        assert sum(r["requests"] for r in planned) == len(distinct)
        assert sum(r["prompt_tokens"] for r in planned) == counted
    assert plan_command.weightless_models(PAPER_CONFIG, tmp_path) == [("models.qwen3", f"{QWEN_FETCH}"),
                                                                       ("models.llama31", f"{LLAMA_FETCH}")]


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory) -> Path:
    """One tokenizer-only Hugging Face cache for the module (each tokenizer then loads once)."""
    cache = tmp_path_factory.mktemp("hf-cache")
    tokenizer_only_hub_cache(cache, PAPER_CONFIG)
    return cache


@pytest.fixture(scope="module")
def direct() -> dict:
    """The real tokenizers loaded straight from their folder, for counting beside the planner."""
    from transformers import AutoTokenizer

    return {name: AutoTokenizer.from_pretrained(str(real_tokenizers() / TOKENIZER_FOLDERS[spec["hub_id"]]))
            for name, spec in PAPER_CONFIG["models"].items() if name in PAPER_CONFIG["generation"]["models"]}


@pytest.fixture
def hub(snapshots, monkeypatch) -> Path:
    """The tokenizer-only cache, used by every offline lookup of this test."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(snapshots))
    return snapshots
