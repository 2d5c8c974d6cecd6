"""The budget cut found from per-line counts and confirmed with whole-text counts is the rule's
cut: identical to re-tokenising every prefix, on generated cases including lines that end in
punctuation (where a newline merges into the previous piece), empty lines and lines with
leading, trailing or inner whitespace."""
import random

import pytest

from evidence_ledger.evidence.budget import assemble_budgeted, estimated_prefix_tokens, line_tokens, token_count
from evidence_ledger.evidence.render import render_evidence

from support.budget_reference import prefix_rule
from support.evidence_tokenizers import budget_tokenizers
from support.real_tokenizers import real_tokenizer

WORDS = ["the", "Arvedal", "founded", "in", "2015", "river", "3.5", "km", "élan", "東京", "(", ")", ",", ".", "!",
         "Inc.", "don't", "--", "|", "[Page | Section]", "<\u2060|im_end|>"]
EDGES = ["", " ", "  lead", "trail  ", "inner  double", "tab\there", "two\nlines", "end.", "end.\n", "\n"]


def generated_cases(seed, n):
    rng = random.Random(seed)
    for _ in range(n):
        lines = []
        for _ in range(rng.randint(0, 12)):
            line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 14)))
            if rng.random() < 0.3:
                line = rng.choice([line + rng.choice(EDGES), rng.choice(EDGES), rng.choice(EDGES) + line])
            lines.append(line)
        budgets = {f"b{i}": rng.randint(0, 90) for i in range(3)}
        yield lines, budgets


def assert_same_as_prefix_rule(tokenizers, seed, n):
    for lines, budgets in generated_cases(seed, n):
        assert assemble_budgeted(lines, tokenizers, budgets) == prefix_rule(lines, tokenizers, budgets), (lines, budgets)


def test_identical_to_the_prefix_rule_under_the_test_tokenizers(tmp_path):
    assert_same_as_prefix_rule(budget_tokenizers(tmp_path), seed=0, n=150)


@pytest.mark.parametrize("names", [("qwen3",), ("llama3",), ("qwen3", "llama3")])
def test_identical_to_the_prefix_rule_under_the_real_tokenizers(names):
    assert_same_as_prefix_rule({n: real_tokenizer(n) for n in names}, seed=len(names), n=150)


def test_the_estimate_is_exact_for_lines_without_edge_whitespace():
    """Each line counted with the newline after it: a line ending in '.' (whose last piece takes
    the newline, '.\\n') is counted right too, so the cut needs no walk."""
    tok = {"qwen3": real_tokenizer("qwen3"), "llama3": real_tokenizer("llama3")}
    lines = ["[Arvedal] It was founded in 2015.", "[Arvedal | History] The river is 3 km long", "plain words here!",
             "[P] 東京 is a city."]
    for name, t in tok.items():
        estimates = estimated_prefix_tokens(line_tokens(lines, tok)[name])
        assert estimates == [token_count(t, render_evidence(lines[:j])) for j in range(len(lines) + 1)]
    # summing the lines alone counts '.' and the newline apart: one token too many under Qwen3
    dotted = ["It was founded in 2015.", "The river is long."]
    alone = sum(token_count(tok["qwen3"], line) for line in dotted) + token_count(tok["qwen3"], "\n")
    assert alone == token_count(tok["qwen3"], render_evidence(dotted)) + 1
