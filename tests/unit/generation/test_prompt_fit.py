"""Prompts longer than the model's context: the WikiContradict and DiffGR jobs stop before their
engine loads, and the preflight says so at start where their inputs are ingested, in one line
naming the longest request and the keys to change."""
from __future__ import annotations

import copy

import pytest

from support.defaults import DEFAULTS
from support.paths import REPO_ROOT

from evidence_ledger.datasets.stage import ingest_wikicontradict
from evidence_ledger.demo.tiny_models import ARCHS, train_tokenizer
from evidence_ledger.generation.prompt_fit import PromptTooLong
from evidence_ledger.run.checks.conflict_prompts import conflict_prompt_lines
from evidence_ledger.tables import read_table
from evidence_ledger.tables.conflict import WC_REQUESTS
from evidence_ledger.wikicontradict.stage import wikicontradict_generate, wikicontradict_requests

DEMO_CSV = REPO_ROOT / "resources" / "demo" / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
MAX_MODEL_LEN = 600
CHAT_KWARGS = {"enable_thinking": False}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run directory with the demo's WikiContradict instances ingested, their requests for
    model ``qwen3`` and a Qwen3-style tokenizer (with its chat template) as the model's directory."""
    root = tmp_path_factory.mktemp("run")
    instances = root / "results" / "ingest" / "wikicontradict" / "instances.parquet"
    instances.parent.mkdir(parents=True)
    ingest_wikicontradict(csv=str(DEMO_CSV), instances=str(instances),
                          standalone_fields=["paragraph_A_clean", "paragraph_B_clean"])
    wc = DEFAULTS["wikicontradict"]
    requests = root / "requests.parquet"
    wikicontradict_requests(instances=str(instances), model="qwen3", templates=wc["templates"],
                            max_new_tokens=wc["max_new_tokens"], seed=wc["seed"],
                            passage_version=wc["passage_version"], out=str(requests))
    tok = train_tokenizer(ARCHS["qwen3"], DEMO_CSV.read_text(encoding="utf-8").splitlines(), 400)
    tok.save_pretrained(root / "tiny_qwen3")
    return root, requests, tok


def longest_request(requests, tok):
    """(tokens, row) of the request with the most prompt tokens, counted here with the tokenizer
    as a backend counts them: chat template, generation prompt, no extra special tokens."""
    rows = read_table(requests, WC_REQUESTS).to_pylist()
    counted = [(len(tok(tok.apply_chat_template(r["messages"], tokenize=False, add_generation_prompt=True,
                                                **CHAT_KWARGS), add_special_tokens=False)["input_ids"]), r)
               for r in rows]
    over = sum(n + r["max_new_tokens"] > MAX_MODEL_LEN for n, r in counted)
    return max(counted, key=lambda c: c[0]), over, len(rows)


def expected_line(what, tokens, row, over, total):
    return (f"{what}: {over} of {total} prompts do not fit generation.vllm.max_model_len = {MAX_MODEL_LEN} tokens; "
            f"the longest, instance_id {row['instance_id']}, template {row['template']}, needs {tokens:,} prompt "
            f"tokens + wikicontradict.max_new_tokens {row['max_new_tokens']} = {tokens + row['max_new_tokens']:,}: "
            f"raise generation.vllm.max_model_len (or lower wikicontradict.max_new_tokens); vLLM would refuse these "
            f"prompts only when the job sends them")


def model_entry(root):
    return {"hub_id": "Qwen/Qwen3-8B", "revision": None, "local_dir": str(root / "tiny_qwen3"),
            "chat_template_kwargs": CHAT_KWARGS, "trust_remote_code": False}


def test_the_wikicontradict_job_stops_before_its_engine_loads_naming_the_longest_prompt(run):
    root, requests, tok = run
    (tokens, row), over, total = longest_request(requests, tok)
    assert 0 < over < total  # the demo's passages: some prompts fit 600 tokens, some do not
    with pytest.raises(PromptTooLong) as refused:  # vLLM is never imported: the line comes first
        wikicontradict_generate(requests=str(requests), model_dir=str(root / "tiny_qwen3"), model="qwen3",
                                model_cfg=model_entry(root), backend="vllm",
                                backend_options={"max_model_len": MAX_MODEL_LEN, "batch_size": 4}, batch_size=4,
                                cache_dir=str(root / "cache"), out=str(root / "responses.parquet"))
    assert str(refused.value) == expected_line("wikicontradict-qwen3, models.qwen3", tokens, row, over, total)
    assert not (root / "responses.parquet").exists()


def test_the_preflight_says_the_same_at_start_where_the_instances_are_ingested(run):
    root, requests, tok = run
    (tokens, row), over, total = longest_request(requests, tok)
    config = copy.deepcopy(DEFAULTS)
    config["studies"] = {k: k == "wikicontradict" for k in config["studies"]}
    config["wikicontradict"]["models"] = ["qwen3"]
    config["models"]["qwen3"] = model_entry(root)
    config["generation"]["backend"] = "vllm"
    config["generation"]["vllm"]["max_model_len"] = MAX_MODEL_LEN
    what = "wikicontradict_generate, models.qwen3, results/ingest/wikicontradict/instances.parquet"
    assert conflict_prompt_lines(config, root) == [("FAIL", expected_line(what, tokens, row, over, total))]
    config["generation"]["vllm"]["max_model_len"] = tokens + row["max_new_tokens"]
    assert conflict_prompt_lines(config, root) == [
        ("ok", f"{what}: {total:,} prompts + wikicontradict.max_new_tokens fit generation.vllm.max_model_len = "
               f"{tokens + row['max_new_tokens']:,}")]
    config["generation"]["backend"] = "transformers"  # only vLLM refuses a prompt past its context
    assert conflict_prompt_lines(config, root) == []
