"""DiffGR pipeline: reader prompts, context order, length control (pure functions)."""
import json
import math
import random

import pytest

from support.defaults import DEFAULTS

from evidence_ledger.config.layers import layered_config
from evidence_ledger.diffgr import pipeline as dp
from support.paths import REPO_ROOT

PROMPT = "Refer to the passage below and answer.\n\n Passage: {background} \n\n Question: {query} \n\n The answer is"
CLOSED = "Answer the question.\n\n Question: {query} \n\n The answer is"
READ_PY_SEED = layered_config(REPO_ROOT)["diffgr"]["random_order_seed"]   # read.py: random.seed(4)
REC = {
    "question_id": "q1", "question": "Where does the Varn rise?", "answers": ["Mount Hollis"],
    "generated_passages": ["The Varn rises on Skarra Peak.", "The Varn, a long river of\nVarenholm, rises on Skarra Peak in the north.",
                           "The Varn river of Varenholm rises on Skarra Peak in the far north."],
    "retrieved_passages": ["The Varn rises on Mount Hollis in the Skarran Range.", "unused second passage"],
    "ctxs": ["The Varn rises on Skarra Peak.", "The Varn rises on Mount Hollis in the Skarran Range."],
}


@pytest.mark.parametrize("text,n", [("The mill, built in 1921, closed.", 6), ("It cost 3.5 million or 1,000 pounds.", 7),
                                    ("don't stop", 3), ("  -- ; ", 0), ("", 0), ("well-known", 2)])
def test_count_words_ignores_punctuation_and_keeps_decimals(text, n):
    assert dp.count_words(text) == n


def test_generated_passage_closest_in_word_count_is_chosen_first_on_tie():
    # retrieved has 10 words; candidates have 6, 14 (newline kept as space), 13 words
    assert [dp.count_words(g) for g in REC["generated_passages"]] == [6, 14, 13]
    assert dp.select_generated_passage(REC["generated_passages"], REC["retrieved_passages"][0]) == 2
    assert dp.select_generated_passage(["a b", "c d", "e"], "x y") == 0


def test_length_rel_diff_edge_cases():
    assert dp.length_rel_diff(103, 100) == pytest.approx(0.03)
    assert dp.length_rel_diff(0, 0) == 0.0 and math.isinf(dp.length_rel_diff(5, 0))
    assert dp.length_ratio(97, 100) == pytest.approx(0.97) and math.isnan(dp.length_ratio(0, 0))
    s = dp.length_summary([0.0, 0.03, 0.031, math.inf], 0.03)
    assert (s["n_pairs"], s["n_within"], s["share_within"]) == (4, 2, 0.5)
    assert s["mean_rel_diff"] == pytest.approx(0.061 / 3)


def test_hybrid_prompt_follows_context_order_and_original_background_format():
    prompts, lengths = dp.plan_reader_prompts([REC], PROMPT, CLOSED, ["generated_first", "retrieved_first"])
    by = {(p["run"], p["order"]): p["prompt"] for p in prompts}
    assert sorted(by) == [("closed_book", ""), ("generated", ""), ("hybrid", "generated_first"),
                          ("hybrid", "retrieved_first"), ("retrieved", "")]
    gen, ret = REC["generated_passages"][2], REC["retrieved_passages"][0]
    assert by[("hybrid", "generated_first")] == PROMPT.format(background=f"\n{gen}\n{ret}", query=REC["question"])
    assert by[("hybrid", "retrieved_first")].index(ret) < by[("hybrid", "retrieved_first")].index(gen)
    assert ret not in by[("generated", "")] and gen in by[("generated", "")]
    assert by[("closed_book", "")] == CLOSED.format(query=REC["question"])
    assert "unused" not in "".join(by.values())
    assert lengths == [{"question_id": "q1", "generated_index": 2, "gen_words": 13, "ret_words": 10,
                        "length_ratio": pytest.approx(1.3), "length_rel_diff": pytest.approx(0.3)}]


def test_newlines_inside_a_passage_become_spaces():
    assert dp.format_background(["a\n\nb\nc ", "d"]) == "\na b c\nd"


def test_bad_order_and_missing_passages_are_refused():
    with pytest.raises(ValueError, match="shuffled"):
        dp.plan_reader_prompts([REC], PROMPT, CLOSED, ["shuffled"])
    with pytest.raises(ValueError, match="question q1"):
        dp.plan_reader_prompts([{**REC, "generated_passages": []}], PROMPT, CLOSED, ["generated_first"])


def test_diffgr_from_counts_nan_on_zero_denominator():
    out = dp.diffgr_from_counts([3, 0, 1], [1, 0, 3])
    assert out[0] == pytest.approx(0.5) and math.isnan(out[1]) and out[2] == pytest.approx(-0.5)


# ----------------------------------------------------------------------------- CC sets + DiffGR
def _records_and_answers():
    # the official in-context check passes here because each answer has a letter "a" and each
    # passage the one-letter token "a" (see scoring.diffgr.answer_in_context)
    gen_p, ret_p = "Paris is a city in the north.", "Madrid is a city in the south."
    golds = {"q1": ["Paris"], "q2": ["Madrid"], "q3": ["Paris"], "q4": ["Paris"], "q5": ["Paris"]}
    records = [{"question_id": q, "question": f"Question {q}?", "answers": g,
                "generated_passages": [gen_p], "retrieved_passages": [ret_p]} for q, g in golds.items()]
    # (gen-only, ret-only, closed-book, hybrid generated_first, hybrid retrieved_first)
    runs = {"q1": ("Paris", "Madrid", "Berlin", "Paris", "Madrid"),
            "q2": ("Paris", "Madrid", "Berlin", "Madrid", "Madrid"),
            "q3": ("Paris", "Madrid", "Berlin", "Berlin", "Rome"),
            "q4": ("Paris", "Madrid", "Paris", "Paris", "Paris"),
            "q5": ("unknown", "Madrid", "Berlin", "Madrid", "Madrid")}
    answers = []
    for q, (g, r, c, h1, h2) in runs.items():
        for run, order, a in (("generated", "", g), ("retrieved", "", r), ("closed_book", "", c),
                              ("hybrid", "generated_first", h1), ("hybrid", "retrieved_first", h2)):
            answers.append({"question_id": q, "run": run, "order": order, "raw_response": a, "answer": a})
    lengths = [{"question_id": q, "generated_index": 0} for q in golds]
    return records, answers, lengths


def test_cc_rows_place_each_question_as_the_official_construction_does():
    records, answers, lengths = _records_and_answers()
    items = dp.merged_items(answers, records, lengths, "generated_first")
    rows = dp.cc_item_rows("m", "nqcc", "generated_first", items)
    got = {r["question_id"]: (r["stage"], r["hybrid_class"]) for r in rows}
    assert got == {"q1": ("AIG", "Gen-Ans"), "q2": ("AIR", "IR-Ans"), "q3": ("AIG", "LLM-Ans"),
                   "q4": ("parametric", ""), "q5": ("unknown", "")}
    removed = dp.cc_item_rows("m", "nqcc", "generated_first", items, removed={"q2"})
    assert [r["stage"] for r in removed if r["question_id"] == "q2"] == ["length_removed"]


def test_diffgr_summary_per_subset_with_neither_rate_and_interval():
    records, answers, lengths = _records_and_answers()
    items = dp.merged_items(answers, records, lengths, "generated_first")
    rows = {r["subset"]: r for r in dp.diffgr_summary_rows("m", "nqcc", "generated_first", items, set(),
                                                           draws=400, seed=7, level=0.95)}
    aig, air = rows["AIG"], rows["AIR"]
    assert (aig["n"], aig["gen_ans"], aig["ir_ans"], aig["llm_ans"]) == (2, 0.5, 0.0, 0.5)
    assert aig["diffgr"] == 1.0 and aig["neither_rate"] == 0.5
    # a resample of q3 twice has Gen + IR = 0: dropped and counted (about a quarter of 400)
    assert 60 < aig["n_undefined"] < 140 and (aig["ci_low"], aig["ci_high"]) == (1.0, 1.0)
    assert air["diffgr"] == -1.0 and air["n"] == 1 and air["neither_rate"] == 0.0
    assert (aig["n_unknown"], aig["n_parametric"], aig["n_questions"]) == (1, 1, 5)
    # retrieved-first order: q1's hybrid answer now follows the retrieved passage
    items_rf = dp.merged_items(answers, records, lengths, "retrieved_first")
    rf = {r["subset"]: r for r in dp.diffgr_summary_rows("m", "nqcc", "retrieved_first", items_rf, set(), 0, 1, 0.95)}
    assert rf["AIG"]["ir_ans"] == 0.5 and rf["AIG"]["others"] == 0.5 and rf["AIG"]["diffgr"] == -1.0


def test_bootstrap_is_reproducible_for_a_seed():
    a = dp.bootstrap_diffgr([1, 0, 1, 0, 0], [0, 1, 0, 0, 1], 300, seed=3, level=DEFAULTS["diffgr"]["bootstrap"]["level"])
    b = dp.bootstrap_diffgr([1, 0, 1, 0, 0], [0, 1, 0, 0, 1], 300, seed=3, level=DEFAULTS["diffgr"]["bootstrap"]["level"])
    assert a == b and -1.0 <= a["ci_low"] <= a["ci_high"] <= 1.0
    assert math.isnan(dp.bootstrap_diffgr([], [], 100, seed=3, level=DEFAULTS["diffgr"]["bootstrap"]["level"])["ci_low"])


def test_missing_reader_answer_is_an_error_naming_the_question():
    records, answers, lengths = _records_and_answers()
    answers = [a for a in answers if not (a["question_id"] == "q4" and a["run"] == "closed_book")]
    with pytest.raises(ValueError, match=r"question q4: no reader answer for runs \['closed_book'\]"):
        dp.merged_items(answers, records, lengths, "generated_first")


# ----------------------------------------------------------------------------- the official reader setup
def _numbered_records(n, dataset="nqcc"):
    return [{"dataset": dataset, "question_id": f"q{k}", "question": f"Question {k}?", "answers": [f"A{k}"],
             "generated_passages": [f"Generated passage number {k}."],
             "retrieved_passages": [f"Retrieved passage number {k}."], "ctxs": None,
             "source_file": f"data/{dataset}.jsonl", "source_line": k + 1} for k in range(n)]


def _read_py_ctxs(records):
    """read.py: ``random.seed(4)`` at import, then per item in file order
    ``ctxs = generated_passage[:1] + retrieved_passage[:1]; random.shuffle(ctxs)``, replayed
    with the module-level ``random`` functions."""
    state = random.getstate()
    try:
        random.seed(4)
        reference = []
        for rec in records:
            ctxs = rec["generated_passages"][:1] + rec["retrieved_passages"][:1]
            random.shuffle(ctxs)
            reference.append(ctxs)
    finally:
        random.setstate(state)
    return reference


def _random_rows(prompts):
    return {p["question_id"]: p for p in prompts if p["run"] == "hybrid" and p["order"] == "random"}


def test_random_order_replays_the_official_read_py_shuffles_over_the_complete_release():
    from evidence_ledger.diffgr.reader_setup import RELEASED_QUESTIONS
    records = _numbered_records(RELEASED_QUESTIONS["nqcc"])
    reference = _read_py_ctxs(records)
    prompts, _ = dp.plan_reader_prompts(records, PROMPT, CLOSED, ["random", "generated_first", "retrieved_first"],
                                        shuffle_seed=READ_PY_SEED)
    hybrid = {(p["question_id"], p["order"]): p for p in prompts if p["run"] == "hybrid"}
    for rec, ctxs in zip(records, reference):
        row = hybrid[(rec["question_id"], "random")]
        assert row["prompt"] == PROMPT.format(background=f"\n{ctxs[0]}\n{ctxs[1]}", query=rec["question"])
        first = "generated_first" if ctxs[0] == rec["generated_passages"][0] else "retrieved_first"
        assert row["context_order"] == first
        # the fixed orders stay as levels beside it, with their own arrangement
        assert hybrid[(rec["question_id"], "generated_first")]["context_order"] == "generated_first"
        assert hybrid[(rec["question_id"], "retrieved_first")]["context_order"] == "retrieved_first"
    assert {r["context_order"] for (q, o), r in hybrid.items() if o == "random"} == {"generated_first",
                                                                                     "retrieved_first"}
    singles = [p for p in prompts if p["run"] != "hybrid"]
    assert {(p["order"], p["context_order"]) for p in singles} == {("", "")}


def test_a_slice_with_recorded_ctxs_gets_the_recorded_orders():
    """40 questions from the middle of the release, each with the ctxs read.py wrote: the
    arrangement is the recorded one (a replay over the slice gets many of them wrong)."""
    from evidence_ledger.diffgr.reader_setup import RELEASED_QUESTIONS, official_random_arrangements
    full = _numbered_records(RELEASED_QUESTIONS["nqcc"])
    reference = _read_py_ctxs(full)
    slice_ = [{**rec, "ctxs": ctxs} for rec, ctxs in list(zip(full, reference))[1000:1040]]
    expected = ["generated_first" if r["ctxs"][0] == r["generated_passages"][0] else "retrieved_first" for r in slice_]
    rows = _random_rows(dp.plan_reader_prompts(slice_, PROMPT, CLOSED, ["random"], shuffle_seed=READ_PY_SEED)[0])
    assert [rows[r["question_id"]]["context_order"] for r in slice_] == expected
    for rec in slice_:
        assert rows[rec["question_id"]]["prompt"] == PROMPT.format(
            background=f"\n{rec['ctxs'][0]}\n{rec['ctxs'][1]}", query=rec["question"])
    # by position the slice would have been replayed wrongly for a good share of its questions
    wrong = sum(a != b for a, b in zip(official_random_arrangements(40, READ_PY_SEED), expected))
    assert wrong >= 10


def test_a_slice_without_ctxs_is_refused_naming_the_file():
    from evidence_ledger.errors import InputError
    with pytest.raises(InputError, match=r"data/nqcc\.jsonl.*ctxs.*40 questions, not the complete nqcc release"):
        dp.plan_reader_prompts(_numbered_records(40), PROMPT, CLOSED, ["random"], shuffle_seed=READ_PY_SEED)
    # the fixed orders need no shuffle and still run on a slice
    assert dp.plan_reader_prompts(_numbered_records(40), PROMPT, CLOSED, ["generated_first"])[0]


def test_ctxs_on_only_some_records_or_not_the_passage_pair_is_refused():
    from evidence_ledger.errors import InputError
    records = _numbered_records(3)
    records[0]["ctxs"] = [records[0]["retrieved_passages"][0], records[0]["generated_passages"][0]]
    with pytest.raises(InputError, match=r"data/nqcc\.jsonl:2: field 'ctxs': 2 of 3 records carry no ctxs"):
        dp.plan_reader_prompts(records, PROMPT, CLOSED, ["random"], shuffle_seed=READ_PY_SEED)
    for rec in records:
        rec["ctxs"] = [rec["retrieved_passages"][0], "a passage of neither list"]
    with pytest.raises(InputError, match=r"data/nqcc\.jsonl:1: field 'ctxs': ctxs must be the first retrieved"):
        dp.plan_reader_prompts(records, PROMPT, CLOSED, ["random"], shuffle_seed=READ_PY_SEED)


def test_random_order_does_not_depend_on_the_other_orders_or_global_random_state():
    from evidence_ledger.diffgr.reader_setup import RELEASED_QUESTIONS
    records = _numbered_records(RELEASED_QUESTIONS["tqacc"], "tqacc")
    random.seed(12345)
    a, _ = dp.plan_reader_prompts(records, PROMPT, CLOSED, ["random"], shuffle_seed=READ_PY_SEED)
    random.random()
    b, _ = dp.plan_reader_prompts(records, PROMPT, CLOSED, ["generated_first", "random"], shuffle_seed=READ_PY_SEED)
    pick = lambda rows: [r["context_order"] for r in rows if r["order"] == "random"]  # noqa: E731
    assert pick(a) == pick(b)
    c, _ = dp.plan_reader_prompts(records, PROMPT, CLOSED, ["random"], shuffle_seed=5)
    assert pick(c) != pick(a)


OFFICIAL_LLAMA_READER = ("Your response must strictly adhere to the format ':%d,' where %d is a single word or phrase. "
                         "The reply must begin with a colon and contain no additional verbosity. "
                         "An example of a good response: ':Joe Biden'")


def test_reader_requests_send_the_system_message_before_the_prompt():
    rows, _ = dp.reader_request_rows([REC], "m", "nqcc", PROMPT, CLOSED, ["random"], 10, 0, 0.03,
                                     system_message=OFFICIAL_LLAMA_READER, shuffle_seed=READ_PY_SEED)
    assert len(rows) == 4
    for row in rows:
        assert [m["role"] for m in row["messages"]] == ["system", "user"]
        assert row["messages"][0]["content"] == OFFICIAL_LLAMA_READER
    plain, _ = dp.reader_request_rows([REC], "m", "nqcc", PROMPT, CLOSED, ["random"], 10, 0, 0.03,
                                      shuffle_seed=READ_PY_SEED)
    assert [m["role"] for m in plain[0]["messages"]] == ["user"]
    assert plain[0]["request_id"] != rows[0]["request_id"]


@pytest.mark.parametrize("config_files", [[], ["config/paper.yaml"]], ids=["demo", "paper"])
def test_config_default_reader_system_message_is_the_official_llama_readers(config_files):
    from evidence_ledger.diffgr.reader_setup import reader_system_message_from_config
    cfg = layered_config(REPO_ROOT, [REPO_ROOT / f for f in config_files])
    block = cfg["diffgr"]["reader_system_message"]
    for name in cfg["diffgr"]["models"]:
        assert reader_system_message_from_config(name, cfg["models"][name], block) == OFFICIAL_LLAMA_READER, name
    assert cfg["diffgr"]["context_orders"][0] == "random" and cfg["diffgr"]["random_order_seed"] == 4


def test_reader_system_message_by_family_and_override():
    from evidence_ledger.diffgr.reader_setup import reader_system_message
    fam = ["llama", "qwen"]
    assert reader_system_message("r1", "meta-llama/Llama-3.1-8B-Instruct", "SYS", fam) == "SYS"
    assert reader_system_message("qwen3", "", "SYS", fam) == "SYS"
    assert reader_system_message("mistral", "mistralai/Mistral-7B-Instruct-v0.3", "SYS", fam) == ""
    assert reader_system_message("r1", "meta-llama/Llama-3.1-8B-Instruct", "SYS", fam, {"r1": ""}) == ""
    assert reader_system_message("mistral", "mistralai/x", "SYS", fam, {"mistral": "OWN"}) == "OWN"


def test_in_context_check_runs_on_the_raw_response():
    """Retrieved passage "The capital of Australia is Canberra.", retrieved-only response
    " Canberra". The official check ``has_answer(" Canberra", passage)`` treats each
    character as an answer; the space has no token, so the empty sequence matches: in
    context. Stripped to "Canberra", no single letter is a token of the passage: not in
    context, and the item would be dropped. The generated-only response " Sydney" likewise
    passes on its passage; gold "Canberra" -> retrieved right, generated wrong -> AIR."""
    rec = {"question_id": "q1", "question": "What is the capital of Australia?", "answers": ["Canberra"],
           "generated_passages": ["The capital of Australia is Sydney."],
           "retrieved_passages": ["The capital of Australia is Canberra."]}
    raw = {"generated": " Sydney", "retrieved": " Canberra", "closed_book": " unknown", "hybrid": " Canberra"}
    rows = [{"question_id": "q1", "run": run, "order": "random" if run == "hybrid" else "",
             "raw_response": text, "answer": text.strip()} for run, text in raw.items()]
    lengths = [{"question_id": "q1", "generated_index": 0}]
    (qid, item), = dp.merged_items(rows, [rec], lengths, "random")
    assert item.ir_ans == " Canberra"
    assert dp.cc_stage(item) == "AIR"
    stripped = [{**r, "raw_response": r["answer"]} for r in rows]
    (_, item_s), = dp.merged_items(stripped, [rec], lengths, "random")
    assert dp.cc_stage(item_s) == "not_in_context"


# ----------------------------------------------------------------------------- through Snakemake
@pytest.mark.workflow
def test_diffgr_end_to_end_on_demo_nqcc_through_snakemake(tmp_path):
    """Ingest demo NQ-CC, generate the five reader runs with a tiny local model, score; then
    the official reader files; a rerun has nothing to do and the length restriction removes
    exactly the pairs outside the threshold."""
    import json
    import re

    import pandas as pd
    import yaml

    from support.snakemake_runs import run_snakemake

    from evidence_ledger.demo.tiny_models import ARCHS, build_untrained_model, train_tokenizer
    from evidence_ledger.scoring.diffgr import score_files

    demo = REPO_ROOT / "resources" / "demo" / "conflict_qa"
    texts = []
    for line in (demo / "nqcc.jsonl").open():
        rec = json.loads(line)
        texts += [rec["question"], *rec["generated_passage"], *rec["retrieved_passage"]]
    tok = train_tokenizer(ARCHS["qwen3"], texts, 512)
    model_dir = tmp_path / "tiny_reader"
    build_untrained_model(ARCHS["qwen3"], tok, seed=0, max_positions=2048).save_pretrained(model_dir)
    tok.save_pretrained(model_dir)

    config = layered_config(REPO_ROOT)
    config["studies"] = {k: k == "diffgr" for k in config["studies"]}
    config["models"]["tiny_reader"] = {**config["models"]["qwen3"], "local_dir": str(model_dir), "build": None}
    config["diffgr"].update(models=["tiny_reader"], datasets=["nqcc"], bootstrap={"draws": 200, "seed": 5, "level": 0.9})
    config["generation"]["backend"] = "transformers"
    # relative paths of a user's config file resolve against the run directory, not this checkout
    config["data_root"] = str(REPO_ROOT / config["data_root"])
    config["accounting"]["reference_values"] = str(REPO_ROOT / config["accounting"]["reference_values"])
    cfg_path = tmp_path / "config.yaml"
    cfg_path.write_text(yaml.safe_dump(json.loads(json.dumps(config)), sort_keys=False))  # no YAML aliases
    work = tmp_path / "work"

    def snakemake(*args, cfg=cfg_path):
        return run_snakemake(work, "--configfile", cfg, "--cores", "1", *args)

    targets = ["results/diffgr/diffgr.tsv", "results/diffgr/length_control.tsv", "results/diffgr/reader_files.tsv"]
    proc = snakemake(*targets)
    assert proc.returncode == 0, proc.stderr[-5000:]

    n_questions = sum(1 for _ in (demo / "nqcc.jsonl").open())
    table = pd.read_csv(work / "results/diffgr/diffgr.tsv", sep="\t")
    assert list(zip(table["order"], table["subset"])) == [  # the official random order first
        ("random", "AIG"), ("random", "AIR"), ("generated_first", "AIG"), ("generated_first", "AIR"),
        ("retrieved_first", "AIG"), ("retrieved_first", "AIR")]
    assert (table["n_questions"] == n_questions).all() and (table["n_length_removed"] == 0).all()
    stages = ["n_unknown", "n_not_in_context", "n_parametric", "n_both_right", "n_both_wrong"]
    for _, row in table.drop_duplicates("order").iterrows():
        aig = table[(table.order == row.order) & (table.subset == "AIG")].iloc[0]
        air = table[(table.order == row.order) & (table.subset == "AIR")].iloc[0]
        assert sum(row[s] for s in stages) + aig.n + air.n == n_questions

    answers = pd.read_parquet(work / "results/diffgr/tiny_reader/nqcc/reader_answers.parquet")
    assert len(answers) == 6 * n_questions
    assert answers.groupby("run").size().to_dict() == {"closed_book": n_questions, "generated": n_questions,
                                                       "hybrid": 3 * n_questions, "retrieved": n_questions}
    # the random order's arrangements: the ones the demo file records in ctxs
    shuffled = answers[answers["order"] == "random"]["context_order"].tolist()
    recorded = [json.loads(line)["ctxs"] for line in (demo / "nqcc.jsonl").open()]
    assert shuffled == [("retrieved_first" if ctxs[0] in json.loads(line)["retrieved_passage"] else "generated_first")
                        for ctxs, line in zip(recorded, (demo / "nqcc.jsonl").open())]
    system = config["diffgr"]["reader_system_message"]["default"]
    assert all(m[0]["role"] == "system" and m[0]["content"] == system for m in answers["messages"])
    assert (answers["max_new_tokens"] == 10).all() and (answers["temperature"] == 0.0).all()
    assert (answers["n_output_tokens"] <= 10).all()

    lengths = pd.read_csv(work / "results/diffgr/length_control.tsv", sep="\t").iloc[0]
    per_q = pd.read_parquet(work / "results/diffgr/tiny_reader/nqcc/lengths.parquet")
    assert lengths["n_pairs"] == n_questions and lengths["n_within"] == int(per_q["within_threshold"].sum())

    files = pd.read_csv(work / "results/diffgr/reader_files.tsv", sep="\t").set_index("subset")
    official = score_files(demo / "reader_runs/hybrid.jsonl", demo / "reader_runs/generated_only.jsonl",
                           demo / "reader_runs/retrieved_only.jsonl", demo / "reader_runs/closed_book.jsonl")
    for subset, key in (("AIG", "aig"), ("AIR", "air")):
        assert files.loc[subset, "n"] == official[key]["n"]
        assert files.loc[subset, "diffgr"] == pytest.approx(official[key]["diffgr"], abs=1e-6)

    again = snakemake("-n", *targets)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr

    config["diffgr"]["restrict_to_length_threshold"] = True
    restricted_cfg = tmp_path / "restricted.yaml"
    restricted_cfg.write_text(yaml.safe_dump(json.loads(json.dumps(config)), sort_keys=False))
    plan = snakemake("-n", "results/diffgr/diffgr.tsv", cfg=restricted_cfg)
    planned = {m.group(1) for m in re.finditer(r"^(\w+)\s+\d+$", plan.stdout, re.MULTILINE)} - {"total"}
    assert planned == {"diffgr_score"}, plan.stdout[-2000:]  # the switch re-runs scoring only
    proc = snakemake("results/diffgr/diffgr.tsv", cfg=restricted_cfg)
    assert proc.returncode == 0, proc.stderr[-5000:]
    restricted = pd.read_csv(work / "results/diffgr/diffgr.tsv", sep="\t")
    assert (restricted["n_length_removed"] == n_questions - int(per_q["within_threshold"].sum())).all()
