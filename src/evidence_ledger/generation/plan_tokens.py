"""The token counters of the planner: prompts and answers under a generation model's tokenizer.

In:  the run's config, a model key and the run directory (a model's ``local_dir`` is relative to it).
Out: a tokenizer (or None where the planner counts characters / ``planner.chars_per_token``), a
     counter of a chat prompt's tokens (its chat template applied as the job applies it), a
     counter of a text's tokens.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..errors import ExpectedError
from .plan_results import PlannerError


def local_tokenizer(config: Mapping[str, Any], model: str, workdir: Path):
    """The tokenizer of ``models.<model>.local_dir`` when that directory exists, else None (a
    Hub model: characters / ``chars_per_token``). A directory whose tokenizer does not load is a
    :class:`PlannerError` naming the model and the directory, never a quiet estimate."""
    mcfg = (config.get("models") or {}).get(model) or {}
    local = mcfg.get("local_dir")
    if not local or not (workdir / local).is_dir():
        return None
    from transformers import AutoTokenizer

    from ..models.model_files import model_directory

    try:
        directory = model_directory(str(workdir / local))  # the one model-directory rule: nothing read from outside it
        return AutoTokenizer.from_pretrained(str(directory), local_files_only=True,
                                             trust_remote_code=bool(mcfg.get("trust_remote_code", False)))
    except (ExpectedError, OSError, ValueError, TypeError, KeyError, ImportError) as err:
        raise PlannerError(f"planner: the tokenizer of models.{model} in {workdir / local} does not load "
                           f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}); the prompts "
                           f"cannot be counted: rebuild or replace that directory") from err


def prompt_token_counter(config: Mapping[str, Any], model: str, workdir: Path):
    mcfg = (config.get("models") or {}).get(model) or {}
    tok = local_tokenizer(config, model, workdir)
    if tok is not None:
        kwargs = dict(mcfg.get("chat_template_kwargs") or {})

        def count(msgs):
            text = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True, **kwargs)
            return len(tok(text, add_special_tokens=False)["input_ids"])

        return count
    cpt = float(config["generation"]["planner"]["chars_per_token"])
    return lambda msgs: int(round(sum(len(m["content"]) for m in msgs) / cpt))



def text_token_counter(config: Mapping[str, Any], model: str, workdir: Path):
    tok = local_tokenizer(config, model, workdir)
    if tok is not None:
        return lambda text: len(tok(text, add_special_tokens=False)["input_ids"])
    cpt = float(config["generation"]["planner"]["chars_per_token"])
    return lambda text: max(1, int(round(len(text) / cpt)))
