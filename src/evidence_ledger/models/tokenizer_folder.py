"""A tokenizer directory as a stand-in model's or a budget's tokenizer: usable, and which one.

In:  a directory (a real model's tokenizer folder, or a model directory holding its tokenizer).
Out: :func:`tokenizer_folder_problem`, why it cannot serve as a stand-in's tokenizer (None when
     it can; the start-of-run check of ``generation.demo_models.tokenizers``), and
     :func:`tokenizer_json_sha256`, the sha256 of its ``tokenizer.json`` (how run tables name the
     vocabulary that counted the evidence budgets).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

TOKENIZER_JSON = "tokenizer.json"


def tokenizer_folder_problem(directory) -> str | None:
    """Why ``directory`` cannot serve as a stand-in's tokenizer: not a directory, no
    ``tokenizer.json``, or no chat template (``chat_template`` in ``tokenizer_config.json``, or
    ``chat_template.jinja``); None when it can."""
    path = Path(directory)
    if not path.is_dir():
        return f"{path} is not a directory"
    if not (path / TOKENIZER_JSON).is_file():
        return f"{path} holds no {TOKENIZER_JSON}"
    if (path / "chat_template.jinja").is_file():
        return None
    config = path / "tokenizer_config.json"
    try:
        template = json.loads(config.read_text(encoding="utf-8")).get("chat_template") if config.is_file() else None
    except (OSError, ValueError) as err:
        return f"{config} does not parse as JSON ({err})"
    return None if template else f"{path} has no chat template (tokenizer_config.json chat_template or chat_template.jinja)"


def tokenizer_json_sha256(directory) -> str | None:
    """sha256 of ``directory``'s ``tokenizer.json``, None when it has none."""
    path = Path(directory) / TOKENIZER_JSON
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
