"""Token-budgeted assembly of evidence under several tokenizers at once.

In:  rendered unit lines in evidence order, tokenizers (name -> tokenizer), budgets
     (name -> max evidence tokens).
Out: per budget the number of leading units kept, the evidence text and its token count
     under every tokenizer.

Rule ("What Changes When Fact-Verification Scores Improve?", Study 2): walk the units in order and add whole units while the rendered evidence
text (``render.render_evidence`` of the prefix) has at most ``budget`` tokens under *every*
tokenizer; stop at the first unit that would make any tokenizer exceed the budget (later,
shorter units are not tried). Token counts are of the whole rendered text without special
tokens (``add_special_tokens=False``), recomputed for every prefix because tokenisation is
not additive across the newline joins. A text of exactly ``budget`` tokens fits. A first
unit that alone exceeds the budget gives empty evidence (0 units, text '', 0 tokens).
"""
from __future__ import annotations

from ..config.layers import config_value
from .render import render_evidence


def budget_tokenizer_models(config) -> list[str]:
    """The models whose tokenizers bound the evidence budgets: ``evidence.budget_tokenizers``, or,
    when it is null, every Study 2 model (``generation.models``), so none can be missed."""
    named = config_value(config, "evidence.budget_tokenizers")
    return list(config_value(config, "generation.models") or []) if named is None else list(named)


def load_tokenizer(name_or_path: str, revision: str | None = None):
    """``AutoTokenizer.from_pretrained`` of a local directory or a Hub id at ``revision`` from the
    local cache (offline, ``model_files.model_directory``), never trusting remote code."""
    from transformers import AutoTokenizer

    from ..models.model_files import model_directory, tokenizer_kwargs

    return AutoTokenizer.from_pretrained(str(model_directory(name_or_path, revision)), **tokenizer_kwargs())


def token_count(tokenizer, text: str) -> int:
    """Tokens of ``text`` without special tokens; 0 for the empty string."""
    if not text:
        return 0
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def assemble_budgeted(lines: list[str], tokenizers: dict, budgets: dict[str, int]) -> dict[str, dict]:
    """For each budget: ``{"n_units", "text", "tokens"}`` (tokens: tokenizer name -> count).

    One walk serves all budgets: the kept prefix for a budget is the longest prefix such
    that every prefix up to it fits (so a larger budget never keeps fewer units).
    """
    if not tokenizers:
        raise ValueError("at least one tokenizer is needed to apply a token budget")
    for name, b in budgets.items():
        if b < 0:
            raise ValueError(f"budget {name!r} is negative ({b})")
    empty = {t: 0 for t in tokenizers}
    result = {name: {"n_units": 0, "text": "", "tokens": dict(empty)} for name in budgets}
    open_budgets = set(budgets)
    for j in range(len(lines)):
        if not open_budgets:
            break
        text = render_evidence(lines[: j + 1])
        counts = {t: token_count(tok, text) for t, tok in tokenizers.items()}
        worst = max(counts.values())
        for name in sorted(open_budgets):
            if worst <= budgets[name]:
                result[name] = {"n_units": j + 1, "text": text, "tokens": counts}
            else:
                open_budgets.discard(name)
    return result


def render_counts(lines: list[str], tokenizers: dict) -> tuple[str, dict[str, int]]:
    """The evidence text of all ``lines`` and its token count per tokenizer (no budget)."""
    text = render_evidence(lines)
    return text, {t: token_count(tok, text) for t, tok in tokenizers.items()}
