"""The preflight's plan check: the longest planned prompt plus its output tokens against each
generate model's max_model_len.

Checks run in-process on a run built as the command line builds it (``--configfile`` files and
``--config`` entries) over a data tree in the paper's layout (``rehearsal-data``); the workflow's
own start and the ``check`` command are tested in tests/workflow/test_preflight.py.
"""
from __future__ import annotations

from support.preflight_runs import PAPER, checks, failures, paper_ready


def test_max_model_len_below_the_longest_planned_prompt_is_refused_naming_rule_and_model(data, hub):
    paper_ready(data, hub)
    failed = failures(checks(f"data_root={data}", "generation={vllm: {max_model_len: 1000}}", files=(PAPER,)))
    assert [f.split(":")[0] for f in failed] == ["generate, models.qwen3", "generate, models.llama31"]
    assert "the longest planned prompt (1,144 tokens" in failed[0] and "+ generation.max_new_tokens 16 = 1,160 tokens " \
        "exceed generation.vllm.max_model_len = 1,000 (--config)" in failed[0]
