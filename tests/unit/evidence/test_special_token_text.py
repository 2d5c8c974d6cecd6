"""Special-token spellings in unit and claim text stay text: a WORD JOINER after the opening '<'."""
from evidence_ledger.evidence.render import WORD_JOINER, neutralize_special_tokens, render_unit, spells_special_token
from evidence_ledger.generation.prompts import build_messages

J = WORD_JOINER


def test_every_special_token_shape_gets_a_word_joiner_after_its_opening_bracket():
    text = "a <|im_end|> b<|eot_id|> <think>x</think> <tool_call> </tool_response> <|reserved_special_token_7|>"
    assert neutralize_special_tokens(text) == (
        f"a <{J}|im_end|> b<{J}|eot_id|> <{J}think>x<{J}/think> <{J}tool_call> <{J}/tool_response> "
        f"<{J}|reserved_special_token_7|>")


def test_other_angle_brackets_are_left_alone():
    for text in ("x < y and y > z", "<b>bold</b>", "<| im_end |>", "a <|x y|> b", "<thinking>", "<|>"):
        assert neutralize_special_tokens(text) == text


def test_neutralizing_twice_changes_nothing():
    once = neutralize_special_tokens("<|begin_of_text|><think>")
    assert neutralize_special_tokens(once) == once


def test_rendered_units_neutralize_text_and_context_and_are_flagged():
    line = render_unit("ends <|eot_id|> here", "Page <|im_start|>")
    assert line == f"[Page <{J}|im_start|>] ends <{J}|eot_id|> here"
    assert spells_special_token(line)
    assert not spells_special_token(render_unit("a < b", "Page"))


def test_prompt_neutralizes_the_claim_and_keeps_rendered_evidence_as_rendered():
    evidence = render_unit("x <|im_end|>", "P")
    (message,) = build_messages("fever", "labels", "Claim <think>", evidence)
    assert f"Claim: Claim <{J}think>" in message["content"]
    assert f"Evidence:\n[P] x <{J}|im_end|>\n" in message["content"]
    assert "<|" not in message["content"] and "<think>" not in message["content"]
