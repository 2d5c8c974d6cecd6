"""DiffGR: RetrieveOrGenerated CC-set construction, hybrid-answer classification, per-subset DiffGR."""
import json

import pytest

from evidence_ledger.errors import InputError
from evidence_ledger.scoring import diffgr
from evidence_ledger.scoring.diffgr import MergedItem

# Both passages hold the single-letter token "i": with the official character-wise in-context
# check, answers containing an "i" (Eiffel, Koechlin) then count as "in context".
GEN_PASSAGE = "I read it was built by a French engineer named Eiffel in Paris."
RET_PASSAGE = "I read it is a tower in Lyon designed by Koechlin."


def item(gen="Eiffel", ir="Koechlin", com="Eiffel", llm="Sauvestre", answers=("Gustave Eiffel", "Eiffel"),
         gen_passage=GEN_PASSAGE, ret_passage=RET_PASSAGE, question="who built it"):
    return MergedItem(question, tuple(answers), gen_passage, ret_passage, gen, ir, com, llm)


def test_squad_normalisation_lowercases_drops_punctuation_articles_and_spaces():
    assert diffgr.normalize_answer("The  Eiffel Tower!") == "eiffel tower"
    assert diffgr.normalize_answer("An apple, a day") == "apple day"
    assert diffgr.normalize_answer("Jean-Paul") == "jeanpaul"


def test_exact_match_against_a_list():
    assert diffgr.exact_match_any("the eiffel", ["Gustave", "Eiffel."])
    assert not diffgr.exact_match_any("Gustave Eiffel", ["Eiffel"])
    with pytest.raises(ValueError):
        diffgr.exact_match_any("x", [])


def test_unknown_like_answers_by_keyword_and_by_exact_match():
    assert diffgr.is_unknown_answer("The passage does not mention the builder")
    assert diffgr.is_unknown_answer("Unknown.")
    assert diffgr.is_unknown_answer("the None")  # EM after normalisation
    # keywords are case-sensitive substrings, as officially
    assert not diffgr.is_unknown_answer("Not provided")
    assert not diffgr.is_unknown_answer("unknowns")


def test_in_context_check_tests_each_character_as_the_official_code_does():
    # "Paris" is in the passage, but the official call tests the characters p, a, r, i, s as tokens
    assert not diffgr.answer_in_context("Paris", "The capital is Paris.")
    assert diffgr.answer_in_context("Paris", "Paris is a city.")  # the token 'a' occurs
    assert diffgr.answer_in_context("New York", "Nothing here.")  # a space always matches
    assert diffgr.has_answer(["Paris"], "The capital is Paris.")  # the list form finds the phrase


def test_simple_tokenizer_splits_words_and_single_symbols():
    assert diffgr.simple_tokenize("Écoute, l'été 2024!") == ["écoute", ",", "l", "'", "été", "2024", "!"]


def test_filters_apply_in_official_order_and_split_aig_air():
    items = [
        item(),  # AIG: gen right, ir wrong
        item(gen="Koechlin", ir="Eiffel", com="Eiffel", question="q2"),  # AIR
        item(gen="unknown", question="q3"),  # unknown filter
        item(ir="no information given", question="q4"),  # unknown filter (keyword)
        item(gen="Eiffel", ret_passage="Nothing here.", question="q5"),  # ir answer not in retrieved passage
        item(llm="eiffel", question="q6"),  # parametric knowledge equals the generated answer
        item(gen="Eiffel", ir="Gustave Eiffel", question="q7"),  # both right
        item(gen="Nouguier", ir="Koechlin", question="q8"),  # both wrong
    ]
    sets = diffgr.build_conflict_sets(items)
    assert [i.question for i in sets.aig] == ["who built it"]
    assert [i.question for i in sets.air] == ["q2"]
    assert (sets.n_merged, sets.n_unknown, sets.n_not_in_context, sets.n_parametric,
            sets.n_both_right, sets.n_both_wrong) == (8, 2, 1, 1, 1, 1)


def test_hybrid_answer_classified_ir_then_gen_then_llm_then_others():
    assert diffgr.classify_hybrid_answer(item(gen="X", ir="X", com="x")) == "IR-Ans"
    assert diffgr.classify_hybrid_answer(item(gen="X", llm="X", com="x")) == "Gen-Ans"
    assert diffgr.classify_hybrid_answer(item(com="Sauvestre")) == "LLM-Ans"
    assert diffgr.classify_hybrid_answer(item(com="Nobody")) == "Others"


def test_diffgr_per_subset_from_shares():
    aig = [item(com="Eiffel"), item(com="Eiffel", question="b"), item(com="Koechlin", question="c"),
           item(com="Sauvestre", question="d")]
    result = diffgr.subset_preference(aig)
    assert result == {"diffgr": pytest.approx((0.5 - 0.25) / 0.75), "gen_ans": 0.5, "ir_ans": 0.25,
                      "llm_ans": 0.25, "others": 0.0, "n": 4}


def test_zero_denominator_gives_zero_with_warning():
    with pytest.warns(UserWarning, match="Gen-Ans \\+ IR-Ans = 0"):
        result = diffgr.subset_preference([item(com="Nobody")], "AIG")
    assert (result["diffgr"], result["others"], result["n"]) == (0.0, 1.0, 1)


def test_empty_subset_gives_zero_with_warning():
    with pytest.warns(UserWarning, match="subset AIR is empty"):
        result = diffgr.diffgr_score([item()])["air"]
    assert result == {"diffgr": 0.0, "gen_ans": 0.0, "ir_ans": 0.0, "llm_ans": 0.0, "others": 0.0, "n": 0}


# --- files ---------------------------------------------------------------------------


def _write(tmp_path, name, records):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _files(tmp_path, closed_book=None):
    hybrid = [
        {"question": "who built it?", "answer": ["Gustave Eiffel", "Eiffel"], "generated_passage": [GEN_PASSAGE],
         "retrieved_passage": [RET_PASSAGE], "response": ["Eiffel"]},
        {"question": "where is it", "answer": ["Lyon city"], "generated_passage": ["It is Paris city."],
         "retrieved_passage": ["It is Lyon city."], "response": ["Lyon city"]},
    ]
    generated = [{"question": "where is it", "response": ["Paris city"]}, {"question": "who built it", "response": ["Eiffel"]}]
    retrieved = [{"question": "who built it", "response": ["Koechlin"]}, {"question": "where is it?", "response": ["Lyon city"]}]
    closed = closed_book or [{"question": "who built it", "response": ["Sauvestre"]},
                             {"question": "where is it", "response": ["Marseille"]}]
    return [_write(tmp_path, n, r) for n, r in
            (("h.jsonl", hybrid), ("g.jsonl", generated), ("r.jsonl", retrieved), ("c.jsonl", closed))]


def test_files_are_matched_by_question_ignoring_a_trailing_question_mark(tmp_path):
    result = diffgr.score_files(*_files(tmp_path))
    assert result["aig"] == {"diffgr": 1.0, "gen_ans": 1.0, "ir_ans": 0.0, "llm_ans": 0.0, "others": 0.0, "n": 1}
    assert result["air"] == {"diffgr": -1.0, "gen_ans": 0.0, "ir_ans": 1.0, "llm_ans": 0.0, "others": 0.0, "n": 1}


def test_question_without_closed_book_answer_names_the_record(tmp_path):
    paths = _files(tmp_path, closed_book=[{"question": "who built it", "response": ["Sauvestre"]}])
    with pytest.raises(InputError, match=r"h.jsonl:2: field 'question': question 'where is it' has no closed-book"):
        diffgr.score_files(*paths)


def test_duplicated_question_is_an_error(tmp_path):
    paths = _files(tmp_path, closed_book=[{"question": "who built it", "response": ["A"]},
                                          {"question": "who built it?", "response": ["B"]}])
    with pytest.raises(InputError, match=r"c.jsonl:2: field 'question': question 'who built it\?' occurs twice"):
        diffgr.score_files(*paths)


def test_empty_gold_answer_list_is_an_error(tmp_path):
    h, g, r, c = _files(tmp_path)
    records = [json.loads(line) for line in h.read_text().splitlines()]
    records[1]["answer"] = []
    h.write_text("".join(json.dumps(x) + "\n" for x in records))
    with pytest.raises(InputError, match=r"h.jsonl:2: field 'answer'"):
        diffgr.score_files(h, g, r, c)


# Strings exercising letters with combining marks, digits, symbols, CJK, control and space chars.
TOKENIZER_CASES = ["Écoute, l'été 2024!", "naïve café — déjà vu", "ＡＢＣ１２３", "東京タワー is 333m",
                   "tab\tnew\nline\u200bzero-width", "C++ & C# (v3.1)", "e\u0301t\u00e9", "$100,000.00 ¿qué?"]


def test_tokenizer_and_normalisation_match_the_official_regex_definitions():
    regex = pytest.importorskip("regex")
    official = regex.compile(r"([\p{L}\p{N}\p{M}]+)|([^\p{Z}\p{C}])",
                             flags=regex.IGNORECASE + regex.UNICODE + regex.MULTILINE)
    for text in TOKENIZER_CASES:
        assert diffgr.simple_tokenize(text) == [m.group().lower() for m in official.finditer(text)], text

    def official_normalize(s):
        s = "".join(ch for ch in s.lower() if ch not in set(__import__("string").punctuation))
        return " ".join(regex.sub(r"\b(a|an|the)\b", " ", s).split())

    for text in TOKENIZER_CASES + ["The Anthem of a theatre", "an  ant, AN apple", "théâtre a la carte"]:
        assert diffgr.normalize_answer(text) == official_normalize(text), text


def test_normalisation_and_tokenizer_match_the_official_code_on_fuzzed_strings():
    """30,000 random strings over letters, articles, spaces, combining marks, superscript and
    other Unicode digits, zero-width and ideographic spaces: the answer normalisation and the
    tokenizer equal the official ones (``tests/support/diffgr_official_evaluation.py``). With
    ``re`` instead of ``regex`` for the article boundary, e.g. ``"a\\u0301"`` and ``"the\\u00b2"``
    normalise differently."""
    import random

    from support.diffgr_official_evaluation import SimpleTokenizer
    from support.diffgr_official_evaluation import normalize_answer as official_normalize
    from evidence_ledger.scoring.diffgr import normalize_answer, simple_tokenize

    alphabet = list("aant he ") + ["\u0301", "\u0300", "\u00b2", "\u00b9", "\u2070", "\u0663", "\u2160", "\u00bd",
                                   "\u00e9", "\u00df", "\u0130", "\u01c5", "\u24b6", "\u200b", "\u00a0", "\u3000",
                                   "-", ".", "_", "1"]
    rng = random.Random(20261126)
    tokenizer = SimpleTokenizer()
    bad = []
    for _ in range(30000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        if normalize_answer(s) != official_normalize(s) or simple_tokenize(s) != tokenizer.tokenize(s, uncased=True):
            bad.append(s)
    assert not bad, [ascii(s) for s in bad[:5]]
    assert normalize_answer("the\u00b2 x") == official_normalize("the\u00b2 x")
