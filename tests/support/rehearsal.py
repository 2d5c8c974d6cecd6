"""The paper run rehearsed on CPU: the README's workstation command with ``config/rehearsal.yaml``
layered after ``config/paper.yaml``, on a data tree in the paper's file layout.

``rehearsal_args(data_root)`` is that command's config part (building the stand-ins over the
real tokenizers when they are present: support/real_tokenizers.py); ``job_stats`` reads a dry
run's job table; ``paper_data_tree`` writes the tree (``python -m evidence_ledger
rehearsal-data``) plus, in the directory README step 2 converts the verifier's base model into,
stand-in model files, which the paper run's preflight (not the rehearsal's) checks;
``paper_hub_cache`` a Hugging Face cache holding stand-ins of the paper's Hub models
(support/hub_cache.py), for the paper's dry run. The runs themselves go through
support/snakemake_runs.py; support/session_runs.py makes the session's rehearsal.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from evidence_ledger.config.layers import layered_config
from evidence_ledger.datasets.rehearsal_data import write_rehearsal_data

from support.hub_cache import paper_hub_models, stand_in_hub_cache, stand_in_model_dir
from support.paths import REPO_ROOT
from support.real_tokenizers import REAL_TOKENIZERS, real_tokenizers_present

PAPER = REPO_ROOT / "config" / "paper.yaml"
REHEARSAL = REPO_ROOT / "config" / "rehearsal.yaml"
DEFAULT_PROFILE = REPO_ROOT / "workflow" / "profiles" / "default"
# the rules that build the stand-ins: the only jobs the rehearsal adds to the paper's
STAND_IN_RULES = ("build_demo_models", "build_demo_reranker", "build_demo_verifier")
# the stand-ins' training steps when built over the real tokenizers (real_tokenizer_entries)
REAL_TOKENIZER_STEPS = 160
REAL_TOKENIZER_CONFLICT_STEPS = 240


def paper_args(data_root: Path) -> list[str]:
    return ["--configfile", str(PAPER), "--config", f"data_root={data_root}"]


def readme_rehearsal_args(data_root: Path) -> list[str]:
    """The config arguments of the README's rehearsal command."""
    return ["--configfile", str(PAPER), str(REHEARSAL), "--config", f"data_root={data_root}"]


def rehearsal_args(data_root: Path) -> list[str]:
    """The rehearsal's config arguments: the README's; with the real tokenizers present
    (support/real_tokenizers.py) the stand-ins are built over them (:func:`real_tokenizer_entries`,
    the README's paragraph after the command)."""
    return [*readme_rehearsal_args(data_root), *real_tokenizer_entries()]


def real_tokenizer_entries() -> list[str]:
    """``--config`` entries building the stand-ins over the real Qwen3 and Llama 3 tokenizers when
    both folders exist (none otherwise). Training over a ~150k vocabulary costs ~0.3 s a step on
    one core (the embedding's gradient and optimizer step), so these builds take half the
    rehearsal's steps (160 + 240 conflict steps instead of 320 + 480)."""
    if not real_tokenizers_present():
        return []
    return [f"generation={{demo_models: {{tokenizers: {{qwen3: {REAL_TOKENIZERS / 'qwen3'}, "
            f"llama31: {REAL_TOKENIZERS / 'llama3'}}}, steps: {REAL_TOKENIZER_STEPS}, "
            f"conflict_tasks: {{steps: {REAL_TOKENIZER_CONFLICT_STEPS}}}}}}}"]


def paper_data_tree(root: Path) -> Path:
    """The rehearsal data tree at ``root``, with stand-in files in the converted-verifier
    directory the paper config names, so that the paper run's dry run passes its preflight."""
    write_rehearsal_data(root, force=True)
    local = layered_config(REPO_ROOT, [PAPER])["verifier"]["base_model"]["local_dir"]
    stand_in_model_dir(root / local, "deberta")
    return root


def paper_hub_cache(root: Path) -> Path:
    """A Hugging Face cache at ``root`` with stand-ins of the Hub models config/paper.yaml loads."""
    return stand_in_hub_cache(root, paper_hub_models(layered_config(REPO_ROOT, [PAPER])))


def job_stats(stdout: str) -> Counter:
    """The first "Job stats" table of a dry run: rule -> count, plus its ``total`` row."""
    counts, in_table = Counter(), False
    for line in stdout.splitlines():
        if line.startswith("job") and "count" in line:
            in_table = True
            continue
        if in_table:
            if line.startswith("total"):
                counts["total"] = int(line.split()[-1])
                break
            match = re.match(r"^(\w+)\s+(\d+)$", line.strip())
            if match:
                counts[match.group(1)] = int(match.group(2))
    return counts
