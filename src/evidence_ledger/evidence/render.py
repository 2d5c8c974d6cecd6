"""Rendering of evidence units into the evidence text a model sees.

In:  a unit's text and context (units table), or rendered unit lines.
Out: one line per unit, and the evidence text (the lines joined).

Format (one unit per line, units joined by a single newline, in evidence order)::

    [CONTEXT] TEXT

where CONTEXT is the unit's context from the units table (FEVER / SciFact: page or
abstract title; FEVEROUS: page title, section and, for cells, the table headers, joined by
" | ") and is left out together with its brackets when empty. Whitespace runs (including
newlines and tabs) inside CONTEXT and TEXT are collapsed to one space so that each unit
stays on one line. No evidence renders as the empty string.

Special-token spellings stay text (:func:`neutralize_special_tokens`): text that spells a
special or added token of a chat model - any ``<|name|>`` (Qwen3's ``<|im_end|>``, Llama 3's
``<|eot_id|>``, ``<|begin_of_text|>``, ``<|reserved_special_token_0|>``, ...) or one of Qwen3's
tag tokens ``<think>``, ``</think>``, ``<tool_call>``, ``</tool_call>``, ``<tool_response>``,
``</tool_response>`` - gets a U+2060 WORD JOINER after its opening ``<``, so no tokenizer
matches it as that token; it still reads the same. The rule is applied when a unit is
rendered, before any budget counts its tokens, so budgets count what the prompt holds; the
prompts apply it to the claim as well (``generation.prompts``). Applying it twice changes
nothing.
"""
from __future__ import annotations

import re

_WS = re.compile(r"\s+")
UNIT_SEPARATOR = "\n"
WORD_JOINER = "\u2060"
# the opening '<' of a special-token spelling: <|name|> or one of the tag-shaped added tokens
_SPECIAL_OPEN = re.compile(r"<(?=\|[A-Za-z0-9_]+\|>|/?(?:think|tool_call|tool_response)>)")
# the same spellings after neutralize_special_tokens (what the evidence text holds)
_NEUTRALIZED = re.compile("<" + WORD_JOINER + r"(?:\|[A-Za-z0-9_]+\|>|/?(?:think|tool_call|tool_response)>)")


def neutralize_special_tokens(text: str) -> str:
    """``text`` with a WORD JOINER after the ``<`` of every special-token spelling (module doc)."""
    return _SPECIAL_OPEN.sub("<" + WORD_JOINER, text)


def spells_special_token(text: str) -> bool:
    """True when rendered ``text`` holds a neutralized special-token spelling (its source spelled one)."""
    return bool(_NEUTRALIZED.search(text or ""))


def render_unit(text: str, context: str) -> str:
    """One unit as one line: ``[context] text`` (``text`` alone when context is empty)."""
    text = neutralize_special_tokens(_WS.sub(" ", text or "").strip())
    context = neutralize_special_tokens(_WS.sub(" ", context or "").strip())
    return f"[{context}] {text}" if context else text


def render_evidence(lines: list[str]) -> str:
    """Join rendered unit lines into the evidence text."""
    return UNIT_SEPARATOR.join(lines)
