"""WikiContradict templates and metrics (pure functions) and the real CSV's prompt count."""
import math

import pandas as pd
import pytest

from evidence_ledger.wikicontradict import prompts as wc
from evidence_ledger.wikicontradict import metrics as wm
from support.paths import REPO_ROOT

INST = wc.Instance(
    instance_id="7", question="When did the mill close?",
    passage1="The mill closed in 1921 after a fire.", passage2="The mill kept working until 1934.",
    answer1="1921", answer2="1934", conflict_type="explicit", same_passage=False,
)
SAME = wc.Instance(
    instance_id="8", question="Who founded the school?",
    passage1="The school was founded by Ada Rask, or according to others by Nils Vance.",
    passage2="The school was founded by Ada Rask, or according to others by Nils Vance.",
    answer1="Ada Rask", answer2="Nils Vance", conflict_type="implicit", same_passage=True,
)


def test_every_template_puts_instruction_question_context_in_the_papers_order():
    """Template set v3 (v2 order): instruction, then "Question: ...", then "Context: ..."; no trailing
    "Answer:" cue; the detection templates end with the format their parser reads."""
    assert wc.TEMPLATE_SET_VERSION == 3
    for tid, template in wc.TEMPLATES.items():
        prompt = wc.render_prompt(INST, template)
        assert prompt.startswith(template.instruction + "\nQuestion: " + INST.question), tid
        if tid != "1":
            first = wc.context_passages(INST, template)[0]
            assert prompt.index("Question:") < prompt.index("Context: ") < prompt.index(first), tid
        assert not prompt.rstrip().endswith("Answer:"), tid
        assert "{" not in prompt, tid  # no unfilled placeholder
    for tid in ("5.2", "5.2-control"):
        prompt = wc.render_prompt(INST, wc.TEMPLATES[tid])
        assert prompt.endswith("Conflict: yes or no\nAnswer: <short answer>\nExplanation: <one or two sentences>")
        assert prompt.count("Conflict:") == 1
    p5 = wc.render_prompt(INST, wc.TEMPLATES["5"])
    assert p5 == (wc.TEMPLATES["5"].instruction + f"\nQuestion: {INST.question}\n"
                  f"Context: {INST.passage1}\n{INST.passage2}")
    assert "Context" not in wc.render_prompt(INST, wc.TEMPLATES["1"])
    p2 = wc.render_prompt(INST, wc.TEMPLATES["2"])
    assert INST.passage1 in p2 and INST.passage2 not in p2
    p3 = wc.render_prompt(INST, wc.TEMPLATES["3"])
    assert INST.passage2 in p3 and INST.passage1 not in p3


def test_template_5_1_swaps_the_passage_order():
    p5 = wc.render_prompt(INST, wc.TEMPLATES["5"])
    p51 = wc.render_prompt(INST, wc.TEMPLATES["5.1"])
    assert p5.index(INST.passage1) < p5.index(INST.passage2)
    assert p51.index(INST.passage2) < p51.index(INST.passage1)
    assert p5.replace(INST.passage1, "X").replace(INST.passage2, "Y") == \
        p51.replace(INST.passage2, "X").replace(INST.passage1, "Y")


def test_template_5_asks_for_the_contradictory_view_and_4_does_not():
    assert "contradictory information" in wc.render_prompt(INST, wc.TEMPLATES["5"])
    assert "contradictory" not in wc.render_prompt(INST, wc.TEMPLATES["4"])
    assert "Conflict: yes or no" in wc.render_prompt(INST, wc.TEMPLATES["5.2"])


def test_control_repeats_passage_one_and_expects_only_answer_one():
    prompt = wc.render_prompt(INST, wc.TEMPLATES["control"])
    assert prompt.count(INST.passage1) == 2 and INST.passage2 not in prompt
    assert wc.gold_answers(INST, wc.TEMPLATES["control"]) == ["1921"]
    assert wc.gold_answers(INST, wc.TEMPLATES["5.1"]) == ["1921", "1934"]
    assert wc.gold_answers(INST, wc.TEMPLATES["3"]) == ["1934"]


def test_same_passage_instance_gets_its_passage_once_and_no_single_passage_templates():
    assert wc.render_prompt(SAME, wc.TEMPLATES["4"]).count(SAME.passage1) == 1
    rows, skipped = wc.render_requests([INST, SAME], ["2", "3", "4", "control", "5.2-control"])
    assert [(r["instance_id"], r["template"]) for r in rows] == [
        ("7", "2"), ("7", "3"), ("7", "4"), ("7", "control"), ("7", "5.2-control"), ("8", "4")]
    assert skipped == {"2": 1, "3": 1, "4": 0, "control": 1, "5.2-control": 1}
    for tid in ("2", "3", "control"):
        with pytest.raises(ValueError, match="share one passage"):
            wc.render_prompt(SAME, wc.TEMPLATES[tid])
    excluded = {(r["template"], r["conflict_type"]): r["n_excluded"]
                for r in wc.excluded_counts([INST, SAME], ["2", "4"])}
    assert excluded == {("2", "explicit"): 0, ("2", "implicit"): 1, ("2", "all"): 1,
                        ("4", "explicit"): 0, ("4", "implicit"): 0, ("4", "all"): 0}


def test_standalone_passages_let_a_same_passage_instance_into_templates_2_and_3():
    import dataclasses

    alone = dataclasses.replace(SAME, passage1="The school was founded by Ada Rask.",
                                passage2="Others say Nils Vance founded the school.", standalone=True)
    rows, skipped = wc.render_requests([alone], ["2", "3", "4"])
    assert skipped == {"2": 0, "3": 0, "4": 0}
    p4 = rows[2]["prompt"]
    assert alone.passage1 in p4 and alone.passage2 in p4
    assert alone.passage2 not in rows[0]["prompt"] and alone.passage1 not in rows[1]["prompt"]


def test_consistent_context_uses_the_modified_passages_when_given():
    import dataclasses

    mod = dataclasses.replace(SAME, consistent1="The school was founded by Ada Rask.",
                              consistent2="Ada Rask founded the school in 1870.")
    assert wc.consistent_context_kind(mod) == "modified_passages"
    assert wc.consistent_context_kind(INST) == "passage1_twice"
    for tid in ("control", "5.2-control"):
        prompt = wc.render_prompt(mod, wc.TEMPLATES[tid])
        assert f"Context: {mod.consistent1}\n{mod.consistent2}" in prompt and SAME.passage1 not in prompt
        assert wc.gold_answers(mod, wc.TEMPLATES[tid]) == ["Ada Rask"]
    assert wc.consistent_context_kinds([INST, SAME, mod]) == {"modified_passages": 1, "passage1_twice": 1}


def test_unknown_template_is_refused():
    with pytest.raises(KeyError, match="5.9"):
        wc.render_requests([INST], ["5", "5.9"])


@pytest.mark.parametrize("response,expected", [
    ("Conflict: yes\nAnswer: 1921 or 1934", "yes"),
    ("**Conflict:** No.\nAnswer: 1921", "no"),
    ("Yes, the passages disagree.", "yes"),
    ("Nope. It closed in 1921.", "unparseable"),
    ("Answer: 1921\nConflict: yes", "unparseable"),
    ("", "unparseable"),
])
def test_conflict_detection_parser_is_strict(response, expected):
    assert wc.parse_conflict_detection(response) == expected


def test_real_csv_renders_253_prompts_per_template():
    from support.paths import shared_file
    from evidence_ledger.datasets import wikicontradict as reader

    path = shared_file("wikicontradict", "WikiContradict_dataset_v1_rag_qa.csv")
    instances = wc.instances_from_records(reader.read_wikicontradict(path).to_pylist(), "rag_qa")
    assert len(instances) == 253
    rows, skipped = wc.render_requests(instances, wc.template_ids())
    assert sum(i.same_passage_flag for i in instances) == 63
    n_same = sum(i.same_passage for i in instances)
    assert sum(i.passage1 == i.passage2 for i in instances) == 58
    assert sum(i.same_passage for i in instances) == sum(wc.same_text(i.passage1, i.passage2) for i in instances)
    assert all(i.same_passage for i in instances if i.passage1 == i.passage2)
    by_id = {i.instance_id: i for i in instances}
    if "126" in by_id:  # flagged Same, but a Shiraz and a Herat passage
        assert by_id["126"].same_passage_flag and not by_id["126"].same_passage
    total = next(r for r in wc.flag_disagreements(instances) if r["conflict_type"] == "all")
    assert total["n_flag_same_text_differs"] == 63 - sum(i.same_passage and i.same_passage_flag for i in instances)
    per_template = pd.Series([r["template"] for r in rows]).value_counts()
    single = ("2", "3", "control", "5.2-control")
    for tid in wc.template_ids():
        expected = 253 - (n_same if tid in single else 0)
        assert per_template[tid] == expected, tid
    # 62 one-passage instances by text (58 identical, 4 differing in whitespace only); instance
    # 126 is the one flagged Same with two passages
    assert n_same == 62 and total["n_flag_same_text_differs"] == 1 and total["n_flag_different_text_same"] == 0
    assert skipped == {t: (62 if t in single else 0) for t in wc.template_ids()}
    excluded = {(r["template"], r["conflict_type"]): r["n_excluded"]
                for r in wc.excluded_counts(instances, wc.template_ids())}
    for tid in ("2", "3"):
        assert (excluded[(tid, "explicit")], excluded[(tid, "implicit")], excluded[(tid, "all")]) == (40, 22, 62)
    assert excluded[("4", "all")] == 0
    assert all(r["prompt"].count("Question:") == 1 for r in rows)


# ----------------------------------------------------------------------------- metrics
def _judged():
    # hand-labelled fixture: model m1, template 5: 3 explicit, 2 implicit; template 4: 1 row
    return pd.DataFrame([
        ("m1", "5", "explicit", "correct"),
        ("m1", "5", "explicit", "partially correct"),
        ("m1", "5", "explicit", "correct"),
        ("m1", "5", "implicit", "incorrect"),
        ("m1", "5", "implicit", "unparseable"),
        ("m1", "4", "implicit", "partially correct"),
    ], columns=["model", "template", "conflict_type", "judge_label"])


def test_judged_rates_on_hand_labelled_fixture():
    out = wm.judged_rates(_judged(), template_order=["4", "5"])
    assert list(zip(out["template"], out["conflict_type"])) == [
        ("4", "explicit"), ("4", "implicit"), ("4", "all"),
        ("5", "explicit"), ("5", "implicit"), ("5", "all")]
    row = out[(out.template == "5") & (out.conflict_type == "all")].iloc[0]
    assert (row.n, row.n_correct, row.n_partial, row.n_incorrect, row.n_unparseable, row.n_parsed) == (5, 2, 1, 1, 1, 4)
    assert row.correct_rate == pytest.approx(0.4) and row.unparseable_rate == pytest.approx(0.2)
    exp = out[(out.template == "5") & (out.conflict_type == "explicit")].iloc[0]
    assert exp.correct_rate == pytest.approx(2 / 3) and exp.partial_rate == pytest.approx(1 / 3)
    empty = out[(out.template == "4") & (out.conflict_type == "explicit")].iloc[0]
    assert empty.n == 0 and math.isnan(empty.correct_rate)


def test_judged_rates_show_the_exclusions_per_template():
    excluded = pd.DataFrame([("4", "implicit", 2), ("4", "all", 2)], columns=["template", "conflict_type", "n_excluded"])
    out = wm.judged_rates(_judged(), template_order=["4", "5"], excluded=excluded)
    assert list(out.columns[:4]) == ["model", "template", "conflict_type", "n_excluded"]
    assert out["n_excluded"].tolist() == [0, 2, 2, 0, 0, 0]


def test_detection_rate_on_conflicts_beside_false_detection_on_consistent_contexts():
    """m: 5.2 on 4 conflicts (3 yes, 1 unparseable) -> 0.75; 5.2-control on 4 consistent
    contexts (1 yes, 2 no, 1 unparseable) -> false detection 0.25; explicit: 2/2 and 1/2."""
    judged = pd.DataFrame([
        ("m", "5.2", "explicit", "yes"), ("m", "5.2", "explicit", "yes"),
        ("m", "5.2", "implicit", "yes"), ("m", "5.2", "implicit", "unparseable"),
        ("m", "5.2-control", "explicit", "yes"), ("m", "5.2-control", "explicit", "no"),
        ("m", "5.2-control", "implicit", "no"), ("m", "5.2-control", "implicit", "unparseable"),
        ("m", "5", "implicit", ""),
    ], columns=["model", "template", "conflict_type", "detection"])
    table = wm.detection_with_control(judged, "passage1_twice")
    assert list(table.columns) == wm.DETECTION_COLUMNS
    out = table.set_index("conflict_type")
    assert out.loc["all", "detection_rate"] == pytest.approx(0.75)
    assert out.loc["all", "false_detection_rate"] == pytest.approx(0.25)
    assert out.loc["explicit", "false_detection_rate"] == pytest.approx(0.5)
    assert (out.loc["all", "n_control"], out.loc["all", "n_control_unparseable"]) == (4, 1)
    assert set(out["consistent_context"]) == {"passage1_twice"}


def test_judged_rates_refuse_unknown_labels():
    bad = _judged()
    bad.loc[0, "judge_label"] = "mostly correct"
    with pytest.raises(ValueError, match="mostly correct"):
        wm.judged_rates(bad)


def test_conflict_detection_rate_counts_unparseable_in_denominator():
    det = pd.DataFrame([("m", "explicit", "yes"), ("m", "explicit", "no"), ("m", "implicit", "yes"),
                        ("m", "implicit", "unparseable")], columns=["model", "conflict_type", "detection"])
    out = wm.detection_with_control(det.assign(template="5.2"), "passage1_twice").set_index("conflict_type")
    assert out.loc["all", "detection_rate"] == pytest.approx(0.5)
    assert out.loc["implicit", "n_unparseable"] == 1
    assert out.loc["explicit", "detection_rate"] == pytest.approx(0.5)


def test_judge_agreement_precision_recall_f1_and_confusion():
    pairs = pd.DataFrame({
        "human_label": ["correct", "correct", "correct", "partially correct", "incorrect", "incorrect"],
        "judge_label": ["correct", "correct", "unparseable", "correct", "incorrect", "partially correct"],
    })
    summary, confusion = wm.judge_agreement(pairs)
    assert (summary["tp"], summary["fp"], summary["fn"]) == (2, 1, 1)
    assert summary["precision"] == pytest.approx(2 / 3)
    assert summary["recall"] == pytest.approx(2 / 3)
    assert summary["f1"] == pytest.approx(2 / 3)
    assert summary["accuracy"] == pytest.approx(3 / 6)
    assert summary["n_unparseable"] == 1
    # the unparseable item (human: correct) excluded: 5 items, tp 2, fp 1, fn 0
    assert (summary["n_parsed"], summary["tp_parsed"], summary["fp_parsed"], summary["fn_parsed"]) == (5, 2, 1, 0)
    assert summary["precision_parsed"] == pytest.approx(2 / 3) and summary["recall_parsed"] == 1.0
    assert summary["f1_parsed"] == pytest.approx(0.8)
    c = confusion.set_index("human_label")
    assert list(c.columns) == ["correct", "partially correct", "incorrect", "unparseable"]
    assert c.loc["correct"].tolist() == [2, 0, 0, 1]
    assert c.loc["incorrect"].tolist() == [0, 1, 1, 0]
    assert int(c.values.sum()) == 6


def test_judge_agreement_without_correct_predictions_has_nan_precision():
    pairs = pd.DataFrame({"human_label": ["correct"], "judge_label": ["incorrect"]})
    summary, _ = wm.judge_agreement(pairs)
    assert math.isnan(summary["precision"]) and summary["recall"] == 0.0 and math.isnan(summary["f1"])


def test_human_label_file_errors_name_line_and_field(tmp_path):
    from evidence_ledger.errors import InputError

    good = '{"question_ID": 3, "template": "5", "model": "m", "response": "r", "human_label": "correct"}\n'
    path = tmp_path / "h.jsonl"
    path.write_text(good + good.replace('"correct"', '"right"'))
    with pytest.raises(InputError, match=r"h.jsonl:2: field 'human_label'"):
        wm.load_human_labels(path)
    path.write_text(good.replace('3,', '3, "item_id": "a",') * 2)
    with pytest.raises(InputError, match=r":2: field 'item_id': duplicate of line 1"):
        wm.load_human_labels(path)
    path.write_text(good.replace('"question_ID": 3, ', ''))
    with pytest.raises(InputError, match=r":1: field 'question_ID'"):
        wm.load_human_labels(path)
    path.write_text(good + good)
    rows = wm.load_human_labels(path).to_dict("records")
    assert [(r["item_id"], r["instance_id"], r["human_label"]) for r in rows] == [
        ("line1", "3", "correct"), ("line2", "3", "correct")]


def test_demo_human_label_file_loads():
    from support.paths import REPO_ROOT

    path = REPO_ROOT / "resources/demo/wikicontradict/human_judgements.jsonl"
    if not path.exists():
        pytest.skip("demo data not generated")
    human = wm.load_human_labels(path)
    assert len(human) > 0 and set(human["human_label"]) <= set(wm.LABELS)


# ----------------------------------------------------------------------------- run rows
def _instance_rows():
    return [
        {"question_id": "7", "question": INST.question, "context1": INST.passage1, "context2": INST.passage2,
         "answer1": "1921", "answer2": "1934", "contradict_type": "explicit", "same_passage": False},
        {"question_id": "8", "question": SAME.question, "context1": SAME.passage1, "context2": SAME.passage2,
         "answer1": "Ada Rask", "answer2": "Nils Vance", "contradict_type": "implicit", "same_passage": True},
    ]


class _Text:
    """What the judge rows read from a generation: its text (plus provenance fields)."""

    def __init__(self, text):
        self.text, self.cache_key, self.n_output_tokens, self.finish_reason = text, "k", 3, "stop"
        self.identity = {"backend": "transformers", "model_id": "m", "model_revision": "", "weights_hash": "h"}


def test_request_rows_are_greedy_with_stable_ids():
    from evidence_ledger.wikicontradict import run as wr

    rows, skipped = wr.wikicontradict_request_rows(_instance_rows(), "m", wc.template_ids(), 250, 0, "rag_qa")
    assert len(rows) == 9 + 5 and skipped == {"1": 0, "2": 1, "3": 1, "4": 0, "5": 0, "5.1": 0, "5.2": 0,
                                              "control": 1, "5.2-control": 1}
    assert {r["max_new_tokens"] for r in rows} == {250} and {r["temperature"] for r in rows} == {0.0}
    again, _ = wr.wikicontradict_request_rows(_instance_rows(), "m", wc.template_ids(), 250, 0, "rag_qa")
    assert [r["request_id"] for r in rows] == [r["request_id"] for r in again]
    # the same-passage instance (1, 4, 5, 5.1, 5.2) has identical prompts for 5 = 5.1: a shared id
    assert len({r["request_id"] for r in rows}) == 9 + 4
    assert rows[0]["messages"] == [{"role": "user", "content": wc.render_prompt(INST, wc.TEMPLATES["1"])}]


def test_judged_rows_keep_raw_outputs_and_parse_labels_and_detection():
    from evidence_ledger.wikicontradict import judge
    from evidence_ledger.wikicontradict import run as wr

    reqs, _ = wr.wikicontradict_request_rows(_instance_rows()[:1], "m", ["5", "5.2", "5.2-control"], 250, 0, "rag_qa")
    responses = wr.wikicontradict_response_rows(reqs, [_Text("1921 or 1934."), _Text("Conflict: yes\nAnswer: 1921"),
                                                       _Text("Conflict: no\nAnswer: 1921")])
    examples = judge.load_fewshot_examples(wr_fewshot_path())
    judge_reqs = wr.judge_request_rows(responses, wr.question_lookup(_instance_rows()), examples, 128, 0)
    assert "Response: 1921 or 1934." in judge_reqs[0]["messages"][0]["content"]
    raw = ["Both years given.\nJudgement: correct", "SUPPORTS", "It says 1921.\nJudgement: correct"]
    rows = wr.judged_rows(responses, judge_reqs, [_Text(t) for t in raw], "judge")
    assert [(r["template"], r["judge_label"], r["judge_reason"], r["detection"]) for r in rows] == [
        ("5", "correct", "", ""), ("5.2", "unparseable", "no judgement line", "yes"),
        ("5.2-control", "correct", "", "no")]
    assert rows[1]["judge_raw"] == "SUPPORTS"


def wr_fewshot_path():
    from support.paths import REPO_ROOT

    return REPO_ROOT / "resources/prompts/wikicontradict_fewshot.jsonl"


def test_human_item_for_unknown_instance_names_the_line():
    from evidence_ledger.wikicontradict import run as wr
    from evidence_ledger.errors import InputError

    human = [{"item_id": "a", "instance_id": "7", "template": "5", "model": "m", "response": "r",
              "human_label": "correct"},
             {"item_id": "b", "instance_id": "99", "template": "5", "model": "m", "response": "r",
              "human_label": "correct"}]
    with pytest.raises(InputError, match=r"h.jsonl:2: field 'instance_id'"):
        wr.human_items(human, _instance_rows(), "h.jsonl")
    items = wr.human_items(human[:1], _instance_rows(), "h.jsonl")
    assert items[0]["gold_answers"] == ["1921", "1934"] and items[0]["conflict_type"] == "explicit"


def test_standalone_passage_version_uses_the_full_json_passages():
    rows = [{**r, "passage1_standalone": f"S1 {r['question_id']}", "passage2_standalone": f"S2 {r['question_id']}"}
            for r in _instance_rows()]
    inst = wc.instances_from_records(rows, "standalone")
    assert (inst[0].passage1, inst[0].passage2) == ("S1 7", "S2 7")
    assert wc.instances_from_records(rows, "rag_qa")[0].passage1 == INST.passage1
    assert inst[1].standalone and inst[1].shares_passage is False
    consistent = wc.instances_from_records([{**rows[0], "passage1_consistent": "C1", "passage2_consistent": "C2"}],
                                           "rag_qa")
    assert (consistent[0].consistent1, consistent[0].consistent2, consistent[0].standalone) == ("C1", "C2", False)
    rows[1]["passage2_standalone"] = None
    with pytest.raises(ValueError, match="question 8: no passage1_standalone / passage2_standalone"):
        wc.instances_from_records(rows, "standalone")


def test_same_passage_is_decided_from_the_text_not_the_release_flag():
    """A record flagged Same whose two passages differ (as the release's instance 126, Shiraz vs
    Herat): both passages are shown by 4 / 5 / 5.1 / 5.2, templates 2 and 3 run on it, and the
    rates table's disagreement count names it. A Different-flagged record whose passages differ
    only in whitespace is one passage."""
    rows = [{"question_id": "126", "question": "Where was he born?", "context1": "He was born in Shiraz.",
             "context2": "He was born in Herat.", "answer1": "Shiraz", "answer2": "Herat",
             "contradict_type": "explicit", "same_passage": True},
            {"question_id": "9", "question": SAME.question, "context1": SAME.passage1,
             "context2": "  " + SAME.passage1.replace(" ", "\n  ", 1) + " ", "answer1": "Ada Rask",
             "answer2": "Nils Vance", "contradict_type": "implicit", "same_passage": False}]
    flagged, unflagged = wc.instances_from_records(rows, "rag_qa")
    assert not flagged.same_passage and flagged.same_passage_flag
    assert unflagged.same_passage and not unflagged.same_passage_flag
    for tid in ("4", "5", "5.1", "5.2"):
        assert sorted(wc.context_passages(flagged, wc.TEMPLATES[tid])) == sorted(["He was born in Shiraz.",
                                                                                 "He was born in Herat."])
    assert wc.applies(flagged, wc.TEMPLATES["2"]) and wc.applies(flagged, wc.TEMPLATES["3"])
    assert not wc.applies(unflagged, wc.TEMPLATES["2"])
    counts = {r["conflict_type"]: r for r in wc.flag_disagreements([flagged, unflagged])}
    assert counts["all"]["n_flag_same_text_differs"] == 1 and counts["all"]["n_flag_different_text_same"] == 1
    assert counts["explicit"]["n_flag_different_text_same"] == 0
