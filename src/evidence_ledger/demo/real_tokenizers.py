"""Stand-in models over a real model's tokenizer (``generation.demo_models.tokenizers``).

In:  a stand-in family (``stand_in_families.ARCHS``: qwen3, llama31) and a directory holding a real
     tokenizer (``tokenizer.json``, ``tokenizer_config.json`` with the model's own chat template).
Out: the tokenizer, loaded offline without remote code, and the family description adapted to
     it (its own chat template and end/padding tokens), for ``tiny_models.build_demo_model``.

The stand-in then has the real vocabulary (embedding sized to ``len(tokenizer)``) and saves the
real tokenizer and template into its directory, so every backend renders the paper's prompts
token for token as the real model would. Special tokens the family names but the tokenizer
lacks (Llama 3's tokenizer keeps reserved names where Llama 3.1 has
``<|finetune_right_pad_id|>``) are left out; padding falls back to the tokenizer's end-of-text
token. ``models.tokenizer_folder.tokenizer_folder_problem`` is the start-of-run check of such a
directory.
"""
from __future__ import annotations

import dataclasses

from ..evidence.budget import load_tokenizer
from ..models.tokenizer_folder import tokenizer_folder_problem
from .stand_in_families import TinyArch


def arch_over(arch: TinyArch, tokenizer) -> TinyArch:
    """``arch`` with the real tokenizer's chat template, only the special tokens it has, and a
    padding token it has (``arch.pad``, else its end-of-text / eos token)."""
    vocab = tokenizer.get_vocab()
    special = tuple(t for t in arch.special_tokens if t in vocab)
    pad = next(t for t in (arch.pad, "<|end_of_text|>", "<|endoftext|>", arch.eos) if t in vocab)
    return dataclasses.replace(arch, special_tokens=tuple(dict.fromkeys(special + (pad,))), pad=pad,
                               stop=tuple(t for t in arch.stop if t in vocab),
                               chat_template=tokenizer.chat_template)


def load_real_tokenizer(arch: TinyArch, directory) -> tuple[object, TinyArch]:
    """The tokenizer of ``directory`` (checked by :func:`tokenizer_folder_problem`) with its
    padding token set, and ``arch`` adapted to it (:func:`arch_over`)."""
    problem = tokenizer_folder_problem(directory)
    if problem:
        raise ValueError(problem)
    tokenizer = load_tokenizer(str(directory))
    adapted = arch_over(arch, tokenizer)
    tokenizer.pad_token = adapted.pad
    return tokenizer, adapted
