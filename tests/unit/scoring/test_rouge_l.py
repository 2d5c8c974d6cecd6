"""ROUGE-L F as KILT computes it (the ``rouge`` package, 1.0.1): fixture values, the package's
edge cases, and equality with a plain implementation of the package's definition."""
import random

import pytest

from evidence_ledger.scoring.rouge_l import RougeHypothesis, rouge_sentences


def rouge_l_f(hypothesis: str, reference: str) -> float:
    """KILT's ``_rougel_score(hypothesis, reference)`` through the scorer's own class."""
    return RougeHypothesis(hypothesis).f_against(reference)


def package_definition_rouge_l(hypothesis: str, reference: str) -> float:
    """The package's summary-level ROUGE-L written plainly: dictionary DP table per sentence
    pair, the package's traceback, the union of the reconstructed words, its F formula."""
    def sentences(text):
        return [" ".join(piece.split()) for piece in text.split(".") if len(piece) > 0]

    hyp, ref = sentences(hypothesis), sentences(reference)
    if not hyp or not ref:
        return 0.0  # the package raises ValueError; KILT scores 0.0
    union = set()
    for ref_sentence in ref:
        x = ref_sentence.split(" ")
        for hyp_sentence in hyp:
            y = hyp_sentence.split(" ")
            table = {}
            for i in range(len(x) + 1):
                for j in range(len(y) + 1):
                    if i == 0 or j == 0:
                        table[i, j] = 0
                    elif x[i - 1] == y[j - 1]:
                        table[i, j] = table[i - 1, j - 1] + 1
                    else:
                        table[i, j] = max(table[i - 1, j], table[i, j - 1])
            i, j = len(x), len(y)
            while i > 0 and j > 0:
                if x[i - 1] == y[j - 1]:
                    union.add(x[i - 1])
                    i, j = i - 1, j - 1
                elif table[i - 1, j] > table[i, j - 1]:
                    i -= 1
                else:
                    j -= 1
    m = len({w for s in ref for w in s.split(" ")})
    n = len({w for s in hyp for w in s.split(" ")})
    r, p = len(union) / m, len(union) / n
    return 2.0 * ((p * r) / (p + r + 1e-8))


def f_value(precision, recall):
    """The package's F of a precision and a recall."""
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8))


def test_identical_texts_score_the_packages_epsilon_value_not_one():
    assert rouge_l_f("it was suicide", "it was suicide") == 0.999999995


def test_kilt_fixture_pair_scores_the_official_values():
    """KILT's downstream fixture: "a suicide" against "suicide" and "it was suicide" against "suicide"."""
    assert rouge_l_f("a suicide", "suicide") == f_value(1 / 2, 1.0) == 0.6666666622222223
    assert rouge_l_f("suicide", "it was suicide") == f_value(1.0, 1 / 3) == 0.4999999962500001


@pytest.mark.parametrize("hypothesis, reference", [("", "a b"), ("...", "a b"), ("a b", "."), ("a", "")])
def test_a_side_without_any_sentence_scores_zero(hypothesis, reference):
    """The package raises "Hypothesis is empty" / "Reference is empty"; KILT turns it into 0.0."""
    assert rouge_l_f(hypothesis, reference) == 0.0


def test_a_piece_of_only_spaces_is_the_empty_sentence_and_its_word_counts():
    """``"a.  .b"`` has the sentences "a", "" and "b": three distinct words, "" among them, so
    against "a b" the precision is 2/3."""
    assert rouge_sentences("a.  .b") == [["a"], [""], ["b"]]
    assert rouge_l_f("a.  .b", "a b") == f_value(2 / 3, 1.0)


def test_words_count_once_however_often_they_occur():
    """``exclusive=True``: "a a a" has one distinct word; its LCS with "a" contributes the word "a" once."""
    assert rouge_l_f("a a a", "a") == 0.999999995


def test_the_union_is_over_words_of_every_sentence_pair():
    """The reference sentence "w1 w2 w3 w4 w5" against the hypothesis "w1 w2 w6 w7 w8. w1 w3 w8 w9 w5":
    union of the two LCS = {w1, w2, w3, w5} (the package's docstring example), m = 5, n = 8."""
    value = rouge_l_f("w1 w2 w6 w7 w8. w1 w3 w8 w9 w5", "w1 w2 w3 w4 w5")
    assert value == f_value(4 / 8, 4 / 5)


def test_the_traceback_prefers_left_on_ties_which_decides_the_words():
    """Reference "a b" (table rows) against the hypothesis "b a": both LCS have length 1 and the
    package's traceback, moving left at the tie, keeps "b". A second reference sentence "b"
    then adds nothing: the union stays {"b"} (precision = recall = 1/2); keeping "a" instead
    would have found both words (0.999999995)."""
    assert rouge_l_f("b a", "a b") == f_value(1 / 2, 1 / 2)
    assert rouge_l_f("b a", "a b. b") == f_value(1 / 2, 1 / 2)
    assert rouge_l_f("b a", "b a. a") == 0.999999995


def test_equals_the_package_definition_on_seeded_random_texts():
    """400 random pairs with repeated words, dots, empty pieces and runs of spaces."""
    rng = random.Random(20210601)
    vocabulary = ["a", "b", "c", "d", "e", "the", "x", ".", ". ", "  ", " .", "ab"]
    for _ in range(400):
        words = vocabulary[:rng.randint(2, len(vocabulary))]
        hypothesis = " ".join(rng.choice(words) for _ in range(rng.randint(0, 30)))
        reference = " ".join(rng.choice(words) for _ in range(rng.randint(0, 30)))
        assert rouge_l_f(hypothesis, reference) == package_definition_rouge_l(hypothesis, reference), \
            (hypothesis, reference)


def test_long_sentences_beyond_the_packages_recursion_limit_are_scored():
    """The package's recursive traceback fails past about 1,000 words per sentence pair; this one does not."""
    text = " ".join(f"w{i % 700}" for i in range(1500))
    assert rouge_l_f(text, text) == 0.999999995
