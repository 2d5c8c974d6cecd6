"""Token-budgeted assembly of evidence under several tokenizers at once.

In:  rendered unit lines in evidence order, tokenizers (name -> tokenizer), budgets
     (name -> max evidence tokens).
Out: per budget the number of leading units kept, the evidence text and its token count
     under every tokenizer.

Rule ("What Changes When Fact-Verification Scores Improve?", Study 2): walk the units in order and add whole units while the rendered evidence
text (``render.render_evidence`` of the prefix) has at most ``budget`` tokens under *every*
tokenizer; stop at the first unit that would make any tokenizer exceed the budget (later,
shorter units are not tried). Token counts are of the whole rendered text without special
tokens (``add_special_tokens=False``). A text of exactly ``budget`` tokens fits. A first
unit that alone exceeds the budget gives empty evidence (0 units, text '', 0 tokens).

How the cut is found (same result, without tokenising every prefix): each unit line is
counted once alone and once with the separator after it (``line_tokens``, batched; the
builder caches them by unit), and a prefix's count is estimated as the sum of its lines'
counts with separator, the last line's without. Byte-level BPE (Qwen3, Llama 3) starts a new
piece at the first character of a line that has no leading whitespace, so the estimate is
usually exact (a line ending in punctuation takes the newline into its last piece, ``.\\n``,
which the with-separator count already holds); it is not exact where a line is empty or has
leading whitespace. The estimate only
proposes the cut: the kept prefix and the prefix plus the next unit are then counted
exactly as whole texts (every budget's two in one batched call per tokenizer), and the cut walks back while the kept prefix does not fit and on
while the next prefix does. The result is the rule's whenever exact prefix counts grow with
the prefix (adding a unit never lowers the count), which holds for these tokenizers.
"""
from __future__ import annotations

from bisect import bisect_right

from ..config.layers import config_value
from .render import UNIT_SEPARATOR, render_evidence


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


def line_tokens(lines: list[str], tokenizers: dict) -> dict[str, list[tuple[int, int]]]:
    """Tokenizer name -> per line (tokens of the line alone, tokens of the line followed by the
    unit separator); one batched call per tokenizer."""
    out = {}
    texts = [line for line in lines if line] + [line + UNIT_SEPARATOR for line in lines]
    for t, tok in tokenizers.items():
        ids = iter(tok(texts, add_special_tokens=False)["input_ids"]) if texts else iter(())
        alone = [len(next(ids)) if line else 0 for line in lines]
        out[t] = [(a, len(next(ids))) for a in alone]
    return out


def estimated_prefix_tokens(counts: list[tuple[int, int]]) -> list[int]:
    """Estimated tokens of every prefix (index j: the first j lines) from :func:`line_tokens`
    counts: the with-separator counts of all lines but the last, plus the last one alone."""
    out, joined = [0], 0
    for alone, with_separator in counts:
        out.append(joined + alone)
        joined += with_separator
    return out


def assemble_budgeted(lines: list[str], tokenizers: dict, budgets: dict[str, int],
                      counts: dict[str, list[tuple[int, int]]] | None = None) -> dict[str, dict]:
    """For each budget: ``{"n_units", "text", "tokens"}`` (tokens: tokenizer name -> count).

    The kept prefix for a budget is the longest prefix such that every prefix up to it fits
    (so a larger budget never keeps fewer units), found from per-line ``counts`` (tokenizer
    name -> :func:`line_tokens` of ``lines``; computed when None) and confirmed with exact
    counts of whole texts (module doc).
    """
    if not tokenizers:
        raise ValueError("at least one tokenizer is needed to apply a token budget")
    for name, b in budgets.items():
        if b < 0:
            raise ValueError(f"budget {name!r} is negative ({b})")
    counts = line_tokens(lines, tokenizers) if counts is None else counts
    estimates = [estimated_prefix_tokens(counts[t]) for t in tokenizers]
    worst_estimate = [max(column) for column in zip(*estimates)]
    exact: dict[int, dict[str, int]] = {0: {t: 0 for t in tokenizers}}
    proposed = {name: bisect_right(worst_estimate, budget) - 1 for name, budget in budgets.items()}
    exact.update(prefix_counts(lines, tokenizers, {j for k in proposed.values() for j in (k, k + 1)
                                                   if 0 < j <= len(lines)}))

    def exact_counts(j: int) -> dict[str, int]:
        if j not in exact:
            text = render_evidence(lines[:j])
            exact[j] = {t: token_count(tok, text) for t, tok in tokenizers.items()}
        return exact[j]

    def fits(j: int, budget: int) -> bool:
        return max(exact_counts(j).values()) <= budget

    result = {}
    for name, budget in budgets.items():
        k = proposed[name]  # estimates never decrease with j
        while k > 0 and not fits(k, budget):
            k -= 1
        while k < len(lines) and fits(k + 1, budget):
            k += 1
        result[name] = {"n_units": k, "text": render_evidence(lines[:k]), "tokens": dict(exact_counts(k))}
    return result


def prefix_counts(lines: list[str], tokenizers: dict, prefixes) -> dict[int, dict[str, int]]:
    """Prefix length j -> exact tokens of the evidence text of ``lines[:j]`` per tokenizer, for
    each j of ``prefixes``, in one batched call per tokenizer."""
    js = sorted(prefixes)
    texts = [render_evidence(lines[:j]) for j in js]
    out: dict[int, dict[str, int]] = {j: {} for j in js}
    for t, tok in tokenizers.items():
        ids = tok(texts, add_special_tokens=False)["input_ids"] if texts else []
        for j, text, row in zip(js, texts, ids):
            out[j][t] = len(row) if text else 0
    return out


def render_counts(lines: list[str], tokenizers: dict) -> tuple[str, dict[str, int]]:
    """The evidence text of all ``lines`` and its token count per tokenizer (no budget)."""
    text = render_evidence(lines)
    return text, {t: token_count(tok, text) for t, tok in tokenizers.items()}
