"""Request planning: counts, seeds, de-duplication, cache keys, planner."""
import pytest

from evidence_ledger.errors import InputError
from evidence_ledger.generation import plan_format, plan_results, planner
from evidence_ledger.generation.backends.base import ChatRequest, ModelSpec, SamplingSpec
from evidence_ledger.generation.cache import cache_key
from evidence_ledger.generation.requests import enumerate_conditions, plan_requests, request_seed

GEN = {
    "seeds": [1103, 2207],
    "sampling": {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.0},
    "max_new_tokens": 16,
    "formats": ["codes", "labels"],
    "sources": ["bm25", "bge"],
    "budgets": ["short", "long"],
    "code_mappings": {
        "primary": {"A": "support", "B": "refute", "C": "nei"},
        "alternatives": {"rotated": {"A": "refute", "B": "nei", "C": "support"}},
    },
    "controls": {"sources": ["none", "gold"], "formats": ["codes", "labels"], "budgets": ["short", "long"],
                 "code_mapping_budgets": ["short"]},
}

CLAIMS = [
    {"claim_id": "1", "claim": "Ada was born in Varenholm.", "label": "SUPPORTS", "gold_abstracts": []},
    {"claim_id": "2", "claim": "Ada never left Varenholm.", "label": "REFUTES", "gold_abstracts": []},
]


def _ev(claim_id, source, budget, text, fits=True):
    return {"dataset": "fever", "claim_id": claim_id, "doc_id": "", "source": source, "budget": budget,
            "visible_text": text, "fits_budget": fits}


EVIDENCE = [
    _ev(c, s, b, f"{s} {b} evidence for {c}")
    for c in ("1", "2") for s in ("bm25", "bge") for b in ("short", "long")
] + [
    _ev(c, "none", b, "") for c in ("1", "2") for b in ("short", "long")
] + [
    _ev("1", "gold", "short", "gold 1"), _ev("1", "gold", "long", "gold 1"),
    _ev("2", "gold", "short", "gold 2 is long", fits=False), _ev("2", "gold", "long", "gold 2 is long"),
]


def test_request_rows_equal_the_hand_computed_product():
    table, skipped = plan_requests("qwen3", "fever", CLAIMS, EVIDENCE, GEN)
    # per unit: primary 2 sources x 2 budgets x 2 formats x (1 greedy + 2 seeds) = 24;
    # controls 2 sources x 2 budgets x 2 formats = 8; alternative mapping 1 x 2 sources x 1 budget = 2
    assert len(enumerate_conditions(GEN)) == 34
    # claim 2's short gold evidence does not fit: its 2 formats are skipped
    assert table.num_rows == 2 * 34 - 2
    assert skipped == {"gold": 2}
    # the `none` control is identical at both budgets (2 formats per claim collapse);
    # claim 1's gold evidence is the same text at both budgets (2 more collapse)
    assert len(set(table.column("request_id").to_pylist())) == table.num_rows - 4 - 2


def test_seed_is_shared_across_sources_formats_and_budgets():
    table, _ = plan_requests("qwen3", "fever", CLAIMS, EVIDENCE, GEN)
    rows = [r for r in table.to_pylist() if r["claim_id"] == "1" and r["condition"] == "primary"]
    for rep in (1, 2):
        seeds = {r["seed"] for r in rows if r["replicate"] == rep}
        assert seeds == {request_seed("fever", "1", "", rep, ([0] + GEN["seeds"])[rep])}
    assert {r["seed"] for r in rows if r["replicate"] == 0} == {0}  # greedy decoding uses no seed
    assert len({r["seed"] for r in rows}) == 3
    assert request_seed("fever", "1", "", 1, 1103) != request_seed("fever", "2", "", 1, 1103)
    assert request_seed("fever", "1", "", 1, 1103) != request_seed("scifact", "1", "", 1, 1103)


def test_greedy_rows_use_temperature_zero_and_sampled_rows_the_config():
    table, _ = plan_requests("qwen3", "fever", CLAIMS, EVIDENCE, GEN)
    for r in table.to_pylist():
        if r["replicate"] == 0:
            assert (r["temperature"], r["top_k"]) == (0.0, 0)
        else:
            assert (r["temperature"], r["top_p"], r["top_k"]) == (0.7, 0.8, 20)
        assert r["max_new_tokens"] == 16


def test_codes_prompt_lists_the_alternative_mapping():
    table, _ = plan_requests("qwen3", "fever", CLAIMS, EVIDENCE, GEN)
    alt = [r for r in table.to_pylist() if r["condition"] == "code_mapping"][0]
    assert "A = REFUTES\nB = NOT ENOUGH INFO\nC = SUPPORTS" in alt["messages"][0]["content"]
    none_row = [r for r in table.to_pylist() if r["source"] == "none"][0]
    assert "(no evidence provided)" in none_row["messages"][0]["content"]


def test_missing_primary_evidence_is_an_input_error():
    partial = [e for e in EVIDENCE if not (e["claim_id"] == "2" and e["source"] == "bge")]
    with pytest.raises(InputError, match="bge/short evidence for claim 2"):
        plan_requests("qwen3", "fever", CLAIMS, partial, GEN, evidence_path="ev.parquet")


def _scifact_units(n_claims: int, docs: tuple[str, ...]):
    claims = [{"claim_id": str(i), "claim": f"Claim {i} about protein {i}.", "label": "SUPPORT",
               "gold_abstracts": []} for i in range(n_claims)]
    ev = [{"dataset": "scifact", "claim_id": str(i), "doc_id": d, "source": s, "budget": b,
           "visible_text": "" if s == "none" else f"abstract {d} of {i} by {s}, {b} cut", "fits_budget": True}
          for i in range(n_claims) for d in docs for s in ("bm25", "bge", "none", "gold")
          for b in ("short", "long")]
    return claims, ev


def test_identical_greedy_prompts_of_different_abstracts_are_one_request():
    """SciFact's abstracts of one claim give byte-identical no-evidence prompts; greedy decoding
    uses no seed, so they are one request (one id, one generation), while the sampled
    replicates of one abstract keep their own seeds."""
    claims, ev = _scifact_units(1, ("10", "20", "30"))
    table, _ = plan_requests("qwen3", "scifact", claims, ev, GEN)
    rows = table.to_pylist()
    none_rows = [r for r in rows if r["source"] == "none"]
    assert len(none_rows) == 3 * 2 * 2  # 3 abstracts x 2 formats x 2 control budgets
    assert len({r["request_id"] for r in none_rows}) == 2  # one per format
    distinct_prompts = {(tuple((m["role"], m["content"]) for m in r["messages"]), r["temperature"], r["seed"])
                        for r in rows}
    assert len(set(table.column("request_id").to_pylist())) == len(distinct_prompts)
    sampled = {r["seed"] for r in rows if r["replicate"] == 1}
    assert len(sampled) == 3  # one seed per abstract


def test_a_claims_requests_share_one_shard_and_shards_partition_unique_requests():
    claims, ev = _scifact_units(12, ("10", "20"))
    table, _ = plan_requests("qwen3", "scifact", claims, ev, GEN, n_shards=3)
    shard_of_id, shard_of_claim = {}, {}
    for r in table.to_pylist():
        assert shard_of_id.setdefault(r["request_id"], r["shard"]) == r["shard"]
        assert shard_of_claim.setdefault(r["claim_id"], r["shard"]) == r["shard"]
    assert set(shard_of_claim.values()) == {0, 1, 2}


def test_a_request_shared_by_two_claims_has_one_shard():
    """Two claims with the same text ask the same no-evidence request: it keeps the first
    claim's shard, so no shard answers it twice."""
    claims, ev = _scifact_units(40, ("10",))
    for c in claims:
        c["claim"] = "The same claim."
    table, _ = plan_requests("qwen3", "scifact", claims, ev, GEN, n_shards=4)
    shards = {}
    for r in table.to_pylist():
        shards.setdefault(r["request_id"], set()).add(r["shard"])
    assert all(len(s) == 1 for s in shards.values())
    none_ids = {r["request_id"] for r in table.to_pylist() if r["source"] == "none"}
    assert len(none_ids) == 2 and len({r["claim_id"] for r in table.to_pylist()}) == 40


def test_prefix_order_makes_requests_sharing_a_prefix_adjacent():
    """The order a job sends its requests: every group sharing a prompt prefix (here: a claim
    and source's evidence, across budgets, formats and replicates) is contiguous."""
    from evidence_ledger.generation.responses import unique_requests

    claims, ev = _scifact_units(6, ("10", "20"))
    table, _ = plan_requests("qwen3", "scifact", claims, ev, GEN)
    order = unique_requests(table)
    assert len(order) == len(set(table.column("request_id").to_pylist()))
    for key in (lambda r: (r["claim_id"], r["doc_id"], r["source"]), lambda r: r["messages"][0]["content"]):
        keys = [str(key(r)) for r in order if r["source"] not in ("none",)]
        runs = [k for i, k in enumerate(keys) if i == 0 or keys[i - 1] != k]
        assert len(runs) == len(set(runs))  # each group is one run


def _key(spec: ModelSpec, template="tpl", seed=7, content="hello", backend="vllm", max_new_tokens=16):
    ident = {**spec.identity(), "backend": backend, "chat_template_hash": template, "settings": {}}
    req = ChatRequest.from_messages([{"role": "user", "content": content}],
                                    SamplingSpec(0.7, 0.8, 20, 1.0, max_new_tokens, seed))
    return cache_key(ident, req)


def test_cache_key_changes_with_revision_template_seed_and_messages():
    spec = ModelSpec("qwen3", "Qwen/Qwen3-8B", revision="abc")
    base = _key(spec)
    assert base == _key(ModelSpec("qwen3", "Qwen/Qwen3-8B", revision="abc"))
    assert base != _key(ModelSpec("qwen3", "Qwen/Qwen3-8B", revision="def"))
    assert base != _key(ModelSpec("qwen3", "x", weights_hash="0" * 64))
    assert base != _key(spec, template="other")
    assert base != _key(spec, seed=8)
    assert base != _key(spec, content="hello!")
    assert base != _key(spec, backend="transformers")
    assert base != _key(spec, max_new_tokens=250)
    assert base != _key(ModelSpec("qwen3", "Qwen/Qwen3-8B", revision="abc", chat_template_kwargs={"enable_thinking": True}))


PLANNER = {"peak_flops": 1.0e15, "prefill_utilisation": 0.5, "output_tokens_per_s": 100, "model_load_s": 60,
           "reuse_sample_units": 50, "chars_per_token": 4, "prompt_tokens_overhead": 100}


def _planned_config(backend="transformers"):
    return {
        "sampling": {"fever": {"n": 10}},
        "models": {"qwen3": {"hub_id": "Qwen/Qwen3-8B", "dtype": "bfloat16"}},
        "generation": {**GEN, "models": ["qwen3"], "datasets": ["fever", "scifact"], "backend": backend,
                       "enable_prefix_caching": True, "shards": 1, "vllm": {"max_model_len": 4096},
                       "planner": {**PLANNER, "population": {"scifact": 5}, "docs_per_claim": {"scifact": 3}}},
        "evidence": {"budgets": {"short": 200, "long": 800}},
    }


def test_planner_counts_from_config_alone(tmp_path):
    rows = planner.plan(_planned_config(), tmp_path)
    by = {(r["dataset"], r["condition"]): r for r in rows}
    assert by[("fever", "primary")]["requests"] == 10 * 24
    assert by[("scifact", "primary")]["requests"] == 15 * 24
    # none: once per format (both budgets identical); gold: 2 budgets x 2 formats
    assert by[("fever", "control:none")]["requests"] == 10 * 2
    assert by[("fever", "control:none")]["prompt_tokens"] == 10 * 2 * 100
    # SciFact: the 3 abstracts of a claim ask one no-evidence request per format
    assert by[("scifact", "control:none")]["requests"] == 5 * 2
    assert by[("fever", "control:gold")]["requests"] == 10 * 4
    assert by[("fever", "code_mapping:rotated")]["requests"] == 10 * 2
    # primary tokens: per unit 12 short + 12 long requests
    assert by[("fever", "primary")]["prompt_tokens"] == 10 * (12 * 300 + 12 * 900)
    r = by[("fever", "primary")]
    # transformers: no prefix cache, every prompt token computed
    assert r["computed_tokens"] == r["prompt_tokens"]
    # answers, not max_new_tokens: codes "A" = 1 token, FEVER labels 2, 2 and 4 tokens at 4
    # characters per token (SUPPORTS, REFUTES, NOT ENOUGH INFO), each + the end-of-turn token
    assert r["output_tokens"] == round(240 * (2 + (2 + 2 + 4) / 3 + 1) / 2)
    tps = 0.5 * 1.0e15 / (2 * 8_190_000_000)
    assert r["gpu_seconds"] == pytest.approx(r["computed_tokens"] / tps + r["output_tokens"] / 100, abs=0.1)
    assert r["floor_seconds"] == pytest.approx(2 * 8_190_000_000 * (r["computed_tokens"] + r["output_tokens"]) / 1e15,
                                               abs=0.1)
    assert by[("fever", "model_load")]["gpu_seconds"] == 60
    assert "total:" in plan_format.format_plan(rows)
    # config-mode counts are upper bounds (gold without annotated evidence is the none request)
    assert not any(r["exact"] for r in rows) and "upper bound" in plan_format.format_plan(rows)


def test_control_conditions_swap_and_reversed_are_asked_per_primary_source():
    from evidence_ledger.generation.requests import enumerate_conditions

    gen = {**GEN, "controls": {"sources": ["none", "swap", "reversed"], "formats": ["labels"], "budgets": ["short"]}}
    ctl = [(c.condition, c.source) for c in enumerate_conditions(gen) if c.condition not in ("primary", "code_mapping")]
    assert ctl == [("none", "none"), ("swap", "swap_bm25"), ("swap", "swap_bge"), ("reversed", "reversed_bm25"),
                   ("reversed", "reversed_bge")]


def _write_run_results(root, evidence_rows, salt="s", n=2, claims_file=None):
    """A run's sample of CLAIMS (drawn with ``salt`` and size ``n`` from ``claims_file``), its
    summary, and the evidence table, under ``root/results`` (what sample_claims and
    assemble_evidence write)."""
    from evidence_ledger.sampling.sample import summary_table
    from evidence_ledger.tables import write_table
    from evidence_ledger.tables.evidence import EVIDENCE as EVIDENCE_TABLE
    from evidence_ledger.tables.ingest import CLAIMS as CLAIMS_TABLE

    claims_file = claims_file or root / "data" / "paper_dev.jsonl"
    rows = [{"dataset": "fever", "claim_id": c["claim_id"], "claim": c["claim"], "label": c["label"],
             "evidence_groups": [], "gold_abstracts": [], "cited_doc_ids": [], "source_file": str(claims_file),
             "source_line": i + 1, "unresolved_ids": []} for i, c in enumerate(CLAIMS)]
    sampling = root / "results/sampling/fever"
    write_table(CLAIMS_TABLE.from_rows(rows), sampling / "sample.parquet", CLAIMS_TABLE)
    summary_table({"dataset": "fever", "method": "hash", "salt": salt, "population": 2, "requested": n,
                   "selected": 2}).to_csv(sampling / "sample_summary.tsv", sep="\t", index=False)
    rows = [{**e, "visible_unit_ids": [], "tokens_by_tokenizer": [("qwen3", len(e["visible_text"].split()))],
             "scored_unit_ids": [], "unresolved": 0, "submitted_unit_ids": None} for e in evidence_rows]
    path = root / "results/evidence/fever/evidence.parquet"
    write_table(EVIDENCE_TABLE.from_rows(rows), path, EVIDENCE_TABLE)
    return path


def _run_config(root, salt="s", n=2):
    config = _planned_config()
    config["generation"].update(datasets=["fever"], planner={**PLANNER, "population": {}})
    config.update(data_root=str(root / "data"), data={"fever": {"claims": {"dev": "paper_dev.jsonl"}}},
                  sampling={"fever": {"split": "dev", "method": "hash", "salt": salt, "n": n}})
    return config


def test_planner_counts_unique_requests_from_existing_evidence(tmp_path):
    _write_run_results(tmp_path, EVIDENCE)
    config = _run_config(tmp_path)
    rows = [r for r in planner.plan(config, tmp_path) if r["condition"] != "model_load"]
    by = {r["condition"]: r for r in rows}
    assert {r["basis"] for r in rows} == {"evidence"}
    # every request of the hand-computed table, each identical request counted once
    assert sum(r["requests"] for r in rows) == 2 * 34 - 2 - 6
    assert by["primary"]["requests"] == 2 * 24
    assert by["control:none"]["requests"] == 2 * 2  # both budgets give the same request
    # 2 formats x (claim 1: same text at both budgets -> 1; claim 2: only long fits -> 1)
    assert by["control:gold"]["requests"] == 2 * (1 + 1)
    assert all(r["exact"] for r in rows) and "exact)" in plan_format.format_plan(rows)
    # on vLLM with prefix caching the real prompts are replayed: the replicates and formats of
    # one evidence text share its blocks, so most primary prompt tokens are reused
    config["generation"]["backend"] = "vllm"
    on = {r["condition"]: r for r in planner.plan(config, tmp_path)}
    assert on["primary"]["requests"] == by["primary"]["requests"]
    assert 0.5 < on["primary"]["reused_tokens"] / on["primary"]["prompt_tokens"] < 1
    assert by["primary"]["reused_tokens"] == 0  # transformers: no prefix cache


def test_planner_nets_prompt_tokens_of_the_prefix_cache_replay(tmp_path):
    """On vLLM with prefix caching, the replicates and formats of one claim's prompt reuse its
    evidence blocks: most primary prompt tokens are served from cache, and GPU time falls
    with them; the compute floor stays below the estimate."""
    off = {(r["dataset"], r["condition"]): r for r in planner.plan(_planned_config(), tmp_path)}
    on = {(r["dataset"], r["condition"]): r for r in planner.plan(_planned_config("vllm"), tmp_path)}
    r = on[("fever", "primary")]
    assert r["prompt_tokens"] == off[("fever", "primary")]["prompt_tokens"]
    assert r["reused_tokens"] / r["prompt_tokens"] > 0.8  # 3 replicates x 2 formats per evidence text
    assert r["computed_tokens"] < off[("fever", "primary")]["computed_tokens"] / 4
    assert r["gpu_seconds"] < off[("fever", "primary")]["gpu_seconds"]
    assert 0 < r["floor_seconds"] < r["gpu_seconds"]


def test_planner_counts_a_served_model_the_same_way_with_one_server_start(tmp_path):
    """A served model (backend openai) asks the same requests with the same prompts; its server is
    planned as a vLLM engine with the config's settings (the same prefix reuse), and it starts once
    per model instead of once per generate job."""
    engine = _planned_config("vllm")
    engine["generation"]["shards"] = 2
    served = _planned_config("vllm")
    served["generation"]["shards"] = 2
    served["models"]["qwen3"].update(backend="openai", server={"base_url": "http://gpu-node:8000/v1"})
    a = {(r["dataset"], r["condition"]): r for r in planner.plan(engine, tmp_path)}
    b = {(r["dataset"], r["condition"]): r for r in planner.plan(served, tmp_path)}
    assert a.keys() == b.keys()
    for key in a:
        if key[1] != "model_load":
            assert {k: b[key][k] for k in a[key]} == a[key], key
    assert [a[(d, "model_load")]["gpu_seconds"] for d in ("fever", "scifact")] == [120, 120]  # 2 jobs x 60 s
    assert [b[(d, "model_load")]["gpu_seconds"] for d in ("fever", "scifact")] == [60, 0]  # one server start


def test_prefix_replay_reuses_shared_blocks_and_evicts_least_recently_used():
    from evidence_ledger.generation import prefix_reuse as pr

    a = (("task", 16), ("claim a", 16), ("ev a", 32))
    b = (("task", 16), ("claim b", 16), ("ev b", 32))
    # a twice: the second reuses all its blocks but the last token's; b shares the first block
    assert pr.replay([a, a, b], 100) == pr.ReuseCounts(3, 192, 63 + 16)
    # a cache of 4 blocks holds only b's blocks when a comes back: one shared block reused
    assert pr.replay([a, b, a], 4) == pr.ReuseCounts(3, 192, 16 + 16)
    # equal tokens at other positions are not a shared prefix
    assert pr.replay([(("x", 16), ("y", 16)), (("y", 16), ("x", 16))], 100).reused_tokens == 0


def test_planner_ignores_results_sampled_for_another_config(tmp_path):
    # A demo sample (another claims file, another size) in the working directory must not be
    # mixed into the plan of a config that names other data: it counts from the config instead.
    _write_run_results(tmp_path, EVIDENCE, claims_file=tmp_path / "demo" / "paper_dev.jsonl")
    config = {"data_root": str(tmp_path / "paper"), "data": {"fever": {"claims": {"dev": "paper_dev.jsonl"}}},
              "sampling": {"fever": {"split": "dev", "method": "hash", "salt": "s", "n": 2}}}
    assert not plan_results.results_match_config(config, "fever", tmp_path)
    config["data_root"] = str(tmp_path / "demo")
    assert plan_results.results_match_config(config, "fever", tmp_path)
    config["sampling"]["fever"] = {"split": "dev", "method": "hash", "salt": "s", "n": 2000}
    assert not plan_results.results_match_config(config, "fever", tmp_path)


def test_a_sample_drawn_under_another_salt_is_not_counted_exact(tmp_path):
    """Same claims file, same size, another sampling salt: another sample, so the plan counts
    from the config (an upper bound), not from those results."""
    _write_run_results(tmp_path, EVIDENCE, salt="another-salt")
    config = _run_config(tmp_path, salt="s")
    assert "sampled with salt 'another-salt', the config says 's'" == plan_results.sample_mismatch(
        config, "fever", tmp_path, tmp_path / "data")
    rows = planner.plan(config, tmp_path)
    assert {r["basis"] for r in rows} == {"config"} and not any(r["exact"] for r in rows)
    assert {r["basis"] for r in planner.plan(_run_config(tmp_path, salt="another-salt"), tmp_path)} == {"evidence"}


def test_evidence_built_for_another_budget_or_sample_is_not_counted_exact(tmp_path):
    _write_run_results(tmp_path, EVIDENCE)
    config = _run_config(tmp_path)
    config["evidence"]["budgets"] = {"short": 2, "long": 800}   # the table's short evidence has 4 tokens
    assert {r["basis"] for r in planner.plan(config, tmp_path)} == {"config"}
    _write_run_results(tmp_path, [e for e in EVIDENCE if e["claim_id"] == "1"])   # claim 2 missing
    assert {r["basis"] for r in planner.plan(_run_config(tmp_path), tmp_path)} == {"config"}
    # evidence for more claims than the sample (the Study 1 claims retrieved besides) is fine
    _write_run_results(tmp_path, EVIDENCE + [{**e, "claim_id": "3"} for e in EVIDENCE if e["claim_id"] == "1"])
    assert {r["basis"] for r in planner.plan(_run_config(tmp_path), tmp_path)} == {"evidence"}
    without_summary = tmp_path / "results/sampling/fever/sample_summary.tsv"
    _write_run_results(tmp_path, EVIDENCE)
    without_summary.unlink()
    assert {r["basis"] for r in planner.plan(_run_config(tmp_path), tmp_path)} == {"config"}


def test_a_tokenizer_that_does_not_load_is_an_error_naming_the_model(tmp_path):
    """No broad except: a broken local tokenizer stops the plan, naming the model and directory,
    instead of quietly counting characters."""
    _write_run_results(tmp_path, EVIDENCE)
    config = _run_config(tmp_path)
    broken = tmp_path / "models" / "qwen3"
    broken.mkdir(parents=True)
    (broken / "tokenizer_config.json").write_text("{ not json")
    config["models"]["qwen3"]["local_dir"] = str(broken)
    with pytest.raises(plan_results.PlannerError, match=r"^planner: the tokenizer of models\.qwen3 in .*models/qwen3 "
                                                   r"does not load"):
        planner.plan(config, tmp_path)


def test_unknown_model_parameters_are_an_error_saying_how_to_know_them(tmp_path):
    config = _planned_config()
    config["models"]["qwen3"].update(local_dir="results/models/qwen3", build="qwen3")
    with pytest.raises(plan_results.PlannerError, match=r"models\.qwen3 .* does not exist yet; it is built by rule "
                                                   r"build_demo_models: run `snakemake --until build_demo_models`"):
        planner.plan(config, tmp_path)


def test_control_count_equals_the_distinct_requests_by_content_on_demo_sized_data(tmp_path):
    """Demo-sized SciFact (48 claims x 3 abstracts, gold evidence empty for abstracts without a
    rationale): the pipeline's control count (rule control_generations) is the number of
    distinct control prompts by content - messages and the sampling a request really uses -
    that no primary request already asks; no greedy prompt is counted once per abstract."""
    import pandas as pd

    from evidence_ledger.accounting.stage import control_generations
    from evidence_ledger.tables import write_table
    from evidence_ledger.tables.generation import REQUESTS

    claims, ev = _scifact_units(48, ("10", "20", "30"))
    for e in ev:
        if e["source"] == "gold" and e["doc_id"] != "10":
            e["visible_text"] = ""  # no rationale: the gold control shows no evidence
    gen = {**GEN, "controls": {**GEN["controls"], "budgets": ["short"]}}
    table, _ = plan_requests("qwen3", "scifact", claims, ev, gen)
    path = tmp_path / "requests.parquet"
    write_table(table, path, REQUESTS)
    control_generations(requests=[str(path)], design="crossed", requests_out=str(tmp_path / "control.tsv"))
    counted = pd.read_csv(tmp_path / "control.tsv", sep="\t")
    rows = table.to_pylist()

    def content(r):
        used_seed = r["seed"] if r["temperature"] > 0 else None
        return (tuple((m["role"], m["content"]) for m in r["messages"]), r["temperature"], r["top_p"], r["top_k"],
                r["max_new_tokens"], used_seed)

    primary = {content(r) for r in rows if r["condition"] == "primary"}
    distinct = {content(r) for r in rows if r["condition"] != "primary"} - primary
    assert int(counted.loc[counted["condition"] == "all", "value"].iat[0]) == len(distinct)
    # 48 claims x 2 formats: one no-evidence request per claim and format, not one per abstract
    assert int(counted.loc[counted["condition"] == "none", "value"].iat[0]) == 48 * 2
