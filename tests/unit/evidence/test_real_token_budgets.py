"""Evidence assembled under the paper's budgets (256 and 1,024 tokens) from real Wikipedia
sentences fits under both real tokenizers (Qwen3, Llama 3) as whole units, and the next unit
would not have fitted."""
import random
import re

import pandas as pd
import pytest

from evidence_ledger.evidence.budget import assemble_budgeted, token_count
from evidence_ledger.evidence.render import render_evidence, render_unit

from support.paths import shared_file
from support.real_tokenizers import real_tokenizer

BUDGETS = {"short": 256, "long": 1024}


@pytest.fixture(scope="module")
def wikipedia_units() -> list[str]:
    """Rendered units: every sentence of the WikiContradict passages with its article title."""
    frame = pd.read_csv(shared_file("wikicontradict", "WikiContradict_dataset_v1_rag_qa.csv"))
    lines = []
    for title, text in zip(frame["WikipediaArticleTitle"], frame["merged_context"]):
        lines += [render_unit(s, title) for s in re.split(r"(?<=[.!?])\s+", str(text)) if s.strip()]
    return list(dict.fromkeys(lines))


def test_budgeted_evidence_fits_as_whole_units_and_the_next_unit_would_not(wikipedia_units):
    tokenizers = {"qwen3": real_tokenizer("qwen3"), "llama3": real_tokenizer("llama3")}
    assert len(wikipedia_units) > 400
    rng = random.Random(0)
    stopped = {b: 0 for b in BUDGETS}
    for _ in range(12):
        lines = rng.sample(wikipedia_units, 100)
        result = assemble_budgeted(lines, tokenizers, BUDGETS)
        assert result["short"]["n_units"] <= result["long"]["n_units"]
        for name, budget in BUDGETS.items():
            k, text = result[name]["n_units"], result[name]["text"]
            assert text == render_evidence(lines[:k])
            for t, tok in tokenizers.items():
                assert result[name]["tokens"][t] == token_count(tok, text) <= budget
            if k < len(lines):
                stopped[name] += 1
                longer = render_evidence(lines[: k + 1])
                assert max(token_count(tok, longer) for tok in tokenizers.values()) > budget
    assert stopped == {"short": 12, "long": 12}  # 100 sentences always exceed 1,024 tokens
