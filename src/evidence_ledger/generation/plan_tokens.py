"""The token counters of the planner: prompts and answers under a generation model's tokenizer.

In:  the run's config, a model key and the run directory (a model's ``local_dir`` is relative to it).
Out: a tokenizer (a local directory's, else a cached Hub snapshot's, which needs no weights; or
     None where the planner counts characters / ``planner.chars_per_token``), a
     counter of a chat prompt's tokens (its chat template applied as the job applies it), a
     counter of a text's tokens.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..errors import ExpectedError
from .plan_results import PlannerError


def local_tokenizer(config: Mapping[str, Any], model: str, workdir: Path):
    """The tokenizer of ``models.<model>.local_dir`` when that directory exists, else that of the
    model's Hub snapshot (``hub_id`` at ``revision``) when the local Hugging Face cache holds it,
    weights or not (:func:`tokenizer_directory`); None when neither is here (then the planner
    counts characters / ``chars_per_token``). A tokenizer that does not load is a
    :class:`PlannerError` naming the model and the directory, never a quiet estimate."""
    mcfg = (config.get("models") or {}).get(model) or {}
    directory = tokenizer_directory(mcfg, workdir)
    if directory is None:
        return None
    try:
        return loaded_tokenizer(str(directory), bool(mcfg.get("trust_remote_code")))
    except (ExpectedError, OSError, ValueError, TypeError, KeyError, ImportError) as err:
        raise PlannerError(f"planner: the tokenizer of models.{model} in {directory} does not load "
                           f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}); the prompts "
                           f"cannot be counted: rebuild or replace that directory") from err


@lru_cache(maxsize=8)
def loaded_tokenizer(directory: str, trust_remote_code: bool):
    """``AutoTokenizer`` of a model directory, offline, loaded once per process (a plan counts
    every model x dataset x format with it)."""
    from transformers import AutoTokenizer

    from ..models.model_files import model_directory, tokenizer_kwargs

    checked = model_directory(directory)  # the one model-directory rule: nothing read from outside it
    return AutoTokenizer.from_pretrained(str(checked), **tokenizer_kwargs(trust_remote_code))


def tokenizer_directory(mcfg: Mapping[str, Any], workdir: Path) -> Path | None:
    """Where a model's tokenizer is read from: its ``local_dir`` (relative to ``workdir``) when that
    is a directory, else (no ``local_dir``) its cached Hub snapshot at ``revision``; None when
    neither is here. A ``local_dir`` that does not exist yet is never replaced by the Hub's."""
    local = mcfg.get("local_dir")
    if local:
        path = workdir / local
        return path if path.is_dir() else None
    if not mcfg.get("revision"):
        return None
    from ..models.model_files import cached_snapshot

    return cached_snapshot(mcfg.get("hub_id"), mcfg["revision"])


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


def weightless_models(config: Mapping[str, Any], workdir: Path) -> list[tuple[str, str]]:
    """``(model key, what to fetch)`` of each generation model whose directory (local, or the
    cached Hub snapshot: :func:`tokenizer_directory`) holds its config and tokenizer but no
    weights (``model_files.weights_absent``): the plan counts its tokens and reads its shape, the
    ``generate`` jobs need the weights the command named fetches."""
    from ..models.model_files import fetch_weights_command, weights_absent

    out = []
    for model in (config.get("generation") or {}).get("models") or []:
        mcfg = (config.get("models") or {}).get(model) or {}
        directory = tokenizer_directory(mcfg, workdir)
        if directory is not None and weights_absent(directory):
            fetch = (f"its weights into {directory}" if mcfg.get("local_dir")
                     else fetch_weights_command(mcfg["hub_id"], mcfg.get("revision")))
            out.append((f"models.{model}", fetch))
    return out
