"""Budgeted assembly: whole units while the text fits under every tokenizer."""
import pytest

from evidence_ledger.evidence.budget import assemble_budgeted, token_count
from evidence_ledger.evidence.render import render_evidence, render_unit
from support.evidence_tokenizers import budget_tokenizers


@pytest.fixture(scope="module")
def toks(tmp_path_factory):
    return budget_tokenizers(tmp_path_factory.mktemp("tok"))


def test_render_puts_context_in_brackets_and_one_unit_per_line():
    assert render_unit("It was founded\nin 2015.", "Arvedal | History") == "[Arvedal | History] It was founded in 2015."
    assert render_unit("plain", "") == "plain"
    assert render_evidence(["a", "b"]) == "a\nb"


def test_tokenizers_load_from_directory_and_disagree_on_punctuation(toks):
    assert token_count(toks["words"], "a, b.") == 2
    assert token_count(toks["pieces"], "a, b.") == 4
    assert token_count(toks["words"], "") == 0


def test_unit_alone_exceeding_the_budget_gives_empty_evidence(toks):
    res = assemble_budgeted(["one two three four", "x"], toks, {"short": 3})
    assert res["short"] == {"n_units": 0, "text": "", "tokens": {"words": 0, "pieces": 0}}


def test_text_exactly_at_the_budget_fits(toks):
    res = assemble_budgeted(["one two", "three four", "five"], toks, {"b": 4})
    assert res["b"]["n_units"] == 2
    assert res["b"]["text"] == "one two\nthree four"
    assert res["b"]["tokens"] == {"words": 4, "pieces": 4}


def test_stops_at_the_first_unit_that_does_not_fit_even_if_a_later_one_would(toks):
    res = assemble_budgeted(["one", "two three four five", "six"], toks, {"b": 3})
    assert res["b"]["n_units"] == 1


def test_the_stricter_tokenizer_binds_when_they_disagree(toks):
    # second unit: 2 more tokens under `words`, 4 more under `pieces`
    lines = ["alpha beta", "a, b.", "c"]
    res = assemble_budgeted(lines, toks, {"b": 5})
    assert res["b"]["n_units"] == 1  # words would allow 2 units (4 tokens), pieces needs 6
    res = assemble_budgeted(lines, toks, {"b": 6})
    assert res["b"]["n_units"] == 2 and res["b"]["tokens"] == {"words": 4, "pieces": 6}


def test_each_budget_keeps_its_own_longest_fitting_prefix(toks):
    lines = ["a b", "c d", "e f", "g h"]
    res = assemble_budgeted(lines, toks, {"short": 4, "long": 7, "zero": 0})
    assert (res["zero"]["n_units"], res["short"]["n_units"], res["long"]["n_units"]) == (0, 2, 3)


def test_negative_budget_and_missing_tokenizer_are_rejected(toks):
    with pytest.raises(ValueError):
        assemble_budgeted(["a"], toks, {"b": -1})
    with pytest.raises(ValueError):
        assemble_budgeted(["a"], {}, {"b": 1})
