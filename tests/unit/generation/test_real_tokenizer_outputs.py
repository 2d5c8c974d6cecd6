"""Answers still parse when a model's output carries the real special tokens: the end-of-turn
token it stopped on (decoded with and without skip_special_tokens) and, for the lenient parser,
a stray <think>...</think> block before the answer."""
import pytest

from evidence_ledger.generation import prompts
from evidence_ledger.generation.parsing import parse_lenient, parse_strict
from evidence_ledger.vocabulary import INVALID

from support.real_tokenizers import real_tokenizer

LABELS = prompts.labels_for("fever")
CODE_MAP = prompts.code_to_label("fever", {"A": "support", "B": "refute", "C": "nei"})
END_OF_TURN = {"qwen3": "<|im_end|>", "llama3": "<|eot_id|>"}


def decoded(name: str, answer_text: str, skip: bool, before: str = "") -> str:
    """``before + answer_text`` tokenised as the model emits it, plus its end-of-turn id, decoded."""
    tok = real_tokenizer(name)
    ids = tok(before + answer_text, add_special_tokens=False)["input_ids"] + [tok.convert_tokens_to_ids(END_OF_TURN[name])]
    return tok.decode(ids, skip_special_tokens=skip)


@pytest.mark.parametrize("name", sorted(END_OF_TURN))
@pytest.mark.parametrize("skip", [True, False])
def test_answers_followed_by_the_end_of_turn_token_parse_strictly(name, skip):
    text = decoded(name, "B", skip)
    assert text == ("B" if skip else "B" + END_OF_TURN[name])
    assert parse_strict(text, "codes", LABELS, CODE_MAP) == "REFUTES"
    assert parse_lenient(text, "codes", LABELS, CODE_MAP) == "REFUTES"
    label = decoded(name, "NOT ENOUGH INFO", skip)
    assert parse_strict(label, "labels", LABELS) == parse_lenient(label, "labels", LABELS) == "NOT ENOUGH INFO"


@pytest.mark.parametrize("skip", [True, False])
def test_a_stray_think_block_is_lenient_only(skip):
    """<think> and </think> are Qwen3 added tokens that skip_special_tokens keeps."""
    text = decoded("qwen3", "A", skip, before="<think>\nThe evidence says it REFUTES? No.\n</think>\n\n")
    assert text.startswith("<think>\nThe evidence")
    assert parse_strict(text, "codes", LABELS, CODE_MAP) == INVALID
    assert parse_lenient(text, "codes", LABELS, CODE_MAP) == "SUPPORTS"
    empty = decoded("qwen3", "SUPPORTS", skip, before="<think>\n\n</think>\n\n")
    assert parse_lenient(empty, "labels", LABELS) == "SUPPORTS"


def test_text_after_the_end_of_turn_token_stays_invalid():
    assert parse_strict("A<|im_end|>B", "codes", LABELS, CODE_MAP) == INVALID
    assert parse_lenient("A<|eot_id|>B", "codes", LABELS, CODE_MAP) == INVALID
