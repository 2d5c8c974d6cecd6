"""The WikiContradictEval judge: prompt rendering and the strict parser of its raw output."""
import json

import pytest

from evidence_ledger.wikicontradict import judge
from evidence_ledger.errors import InputError

FEWSHOT = judge.load_fewshot_examples(
    __import__("pathlib").Path(__file__).resolve().parents[3] / "resources/prompts/wikicontradict_fewshot.jsonl")


def test_fewshot_file_covers_all_three_labels():
    assert {ex.judgement for ex in FEWSHOT} == set(judge.LABELS)


def test_prompt_holds_rubric_examples_and_case_in_order():
    prompt = judge.render_judge_prompt("Q?", ["A", "B"], "It is A.", FEWSHOT[:2])
    assert prompt.startswith(judge.RUBRIC)
    assert prompt.index("Example 1") < prompt.index("Example 2") < prompt.index("Now judge this response.")
    assert prompt.endswith("Question: Q?\nCorrect answers:\n- A\n- B\nResponse: It is A.\nExplanation:")
    assert f"Judgement: {FEWSHOT[0].judgement}" in prompt
    with pytest.raises(ValueError):
        judge.render_judge_prompt("Q?", [], "r", FEWSHOT)


@pytest.mark.parametrize("raw,label", [
    (" Both answers are attributed.\nJudgement: correct", "correct"),
    ("Only one answer.\nJudgement: Partially Correct.", "partially correct"),
    ("None of them.\n**Judgment:** incorrect", "incorrect"),
    ("Judgement: correct\nJudgement: correct", "correct"),
    # "incorrect" and "partially correct" contain "correct": never read as correct
    ("The response is not correct.\nJudgement: incorrect", "incorrect"),
])
def test_parser_reads_well_formed_judgements(raw, label):
    parsed = judge.parse_judgement(raw)
    assert parsed.label == label and parsed.reason == ""


@pytest.mark.parametrize("raw,reason", [
    ("", "empty output"),
    ("The response is correct.", "no judgement line"),
    ("Judgement: mostly correct", "no judgement line"),
    ("Judgement: correct because both are given", "no judgement line"),
    ("Judgement: correct\nOn reflection.\nJudgement: incorrect", "conflicting judgements: correct, incorrect"),
    ("correct correct correct", "no judgement line"),
])
def test_parser_counts_malformed_output_as_unparseable(raw, reason):
    parsed = judge.parse_judgement(raw)
    assert parsed.label == judge.UNPARSEABLE and parsed.reason == reason


def test_parser_ignores_an_invented_follow_on_case():
    raw = ("Only one year is given.\nJudgement: partially correct\n\nQuestion: Who built it?\n"
           "Correct answers:\n- X\nResponse: X\nExplanation: fine\nJudgement: correct")
    assert judge.parse_judgement(raw).label == "partially correct"
    # the invented case starts before any judgement: nothing left to read
    assert judge.parse_judgement("Hmm.\nExample 8\nJudgement: correct").label == judge.UNPARSEABLE


def test_fewshot_loader_names_line_and_field(tmp_path):
    rec = {"question": "q", "gold_answers": ["a"], "response": "r", "explanation": "e", "judgement": "correct"}
    path = tmp_path / "f.jsonl"
    path.write_text(json.dumps(rec) + "\n" + json.dumps({**rec, "judgement": "right"}) + "\n")
    with pytest.raises(InputError, match=r"f.jsonl:2: field 'judgement'"):
        judge.load_fewshot_examples(path)
    path.write_text(json.dumps({**rec, "gold_answers": "a"}) + "\n")
    with pytest.raises(InputError, match=r"f.jsonl:1: field 'gold_answers'"):
        judge.load_fewshot_examples(path)
    path.write_text("{not json\n")
    with pytest.raises(InputError, match=r"f.jsonl:1: field '<json>': malformed JSON"):
        judge.load_fewshot_examples(path)


#: sha256 of one rendered judge prompt (rubric, committed few-shot examples, case layout) per
#: JUDGE_PROMPT_VERSION: a new prompt text needs a new version (and a new entry here)
RENDERED_PROMPT_SHA256 = {2: "37f90a2dc0ced51eba6134693c64575b94345a2806d9742f4ecb330d4c7b0574"}


def test_a_changed_prompt_text_comes_with_a_new_prompt_version():
    import hashlib
    digest = hashlib.sha256(judge.render_judge_prompt("Q?", ["a", "b"], "R.", FEWSHOT).encode()).hexdigest()
    assert RENDERED_PROMPT_SHA256.get(judge.JUDGE_PROMPT_VERSION) == digest, (
        "the judge prompt text changed: bump judge.JUDGE_PROMPT_VERSION and record the new digest")


def test_the_docstring_says_which_parts_are_the_projects():
    doc = judge.__doc__
    assert "published one" not in doc
    assert "Appendix C" in doc and "wording of :data:`RUBRIC` is the project's" in doc
    assert "few-shot examples are the project's (``resources/prompts/wikicontradict_fewshot.jsonl``)" in doc
