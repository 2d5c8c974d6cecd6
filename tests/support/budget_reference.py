"""The evidence budget rule as first written, kept beside the tests as the reference.

Every prefix of the rendered unit lines is tokenised whole under every tokenizer; a budget keeps
the longest prefix up to the first one that does not fit under all of them. Used by
tests/unit/evidence/test_budget_exact.py and benchmarks/real_tokens_assembly.py to show that
``evidence_ledger.evidence.budget.assemble_budgeted`` (per-line counts, confirmed by whole-text
counts) cuts exactly where this does.
"""
from evidence_ledger.evidence.budget import token_count
from evidence_ledger.evidence.render import render_evidence


def prefix_rule(lines, tokenizers, budgets):
    """For each budget ``{"n_units", "text", "tokens"}`` of the longest prefix that fits."""
    result = {name: {"n_units": 0, "text": "", "tokens": {t: 0 for t in tokenizers}} for name in budgets}
    open_budgets = set(budgets)
    for j in range(len(lines)):
        if not open_budgets:
            break
        text = render_evidence(lines[: j + 1])
        counts = {t: token_count(tok, text) for t, tok in tokenizers.items()}
        for name in sorted(open_budgets):
            if max(counts.values()) <= budgets[name]:
                result[name] = {"n_units": j + 1, "text": text, "tokens": counts}
            else:
                open_budgets.discard(name)
    return result
