"""DiffGR pipeline: reader prompts, context order, length control (pure functions)."""
import math

import pytest

from evidence_ledger.conflict import diffgr_pipeline as dp

PROMPT = "Refer to the passage below and answer.\n\n Passage: {background} \n\n Question: {query} \n\n The answer is"
CLOSED = "Answer the question.\n\n Question: {query} \n\n The answer is"
REC = {
    "question_id": "q1", "question": "Where does the Varn rise?", "answers": ["Mount Hollis"],
    "generated_passages": ["The Varn rises on Skarra Peak.", "The Varn, a long river of\nVarenholm, rises on Skarra Peak in the north.",
                           "The Varn river of Varenholm rises on Skarra Peak in the far north."],
    "retrieved_passages": ["The Varn rises on Mount Hollis in the Skarran Range.", "unused second passage"],
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
                        "length_rel_diff": pytest.approx(0.3)}]


def test_newlines_inside_a_passage_become_spaces():
    assert dp.format_background(["a\n\nb\nc ", "d"]) == "\na b c\nd"


def test_bad_order_and_missing_passages_are_refused():
    with pytest.raises(ValueError, match="random"):
        dp.plan_reader_prompts([REC], PROMPT, CLOSED, ["random"])
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
            answers.append({"question_id": q, "run": run, "order": order, "answer": a})
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
    a = dp.bootstrap_diffgr([1, 0, 1, 0, 0], [0, 1, 0, 0, 1], 300, seed=3)
    b = dp.bootstrap_diffgr([1, 0, 1, 0, 0], [0, 1, 0, 0, 1], 300, seed=3)
    assert a == b and -1.0 <= a["ci_low"] <= a["ci_high"] <= 1.0
    assert math.isnan(dp.bootstrap_diffgr([], [], 100, seed=3)["ci_low"])


def test_missing_reader_answer_is_an_error_naming_the_question():
    records, answers, lengths = _records_and_answers()
    answers = [a for a in answers if not (a["question_id"] == "q4" and a["run"] == "closed_book")]
    with pytest.raises(ValueError, match=r"question q4: no reader answer for runs \['closed_book'\]"):
        dp.merged_items(answers, records, lengths, "generated_first")
