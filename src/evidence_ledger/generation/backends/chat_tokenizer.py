"""Chat-template rendering and tokenisation shared by the generation backends.

In:  a backend holding a Hugging Face tokenizer as ``self.tokenizer`` (transformers loads it
     itself, vLLM hands out the one its engine uses) and a :class:`.base.ModelSpec` as
     ``self.spec`` (its ``chat_template_kwargs``, e.g. ``enable_thinking=False`` for Qwen3).
Out: the template text, the rendered prompt of a chat (generation prompt added) and the
     token ids of a rendered prompt.

Both backends render with the model's own template and tokenise *without* extra special
tokens (the template already contains BOS where the model wants one), so they see the same
token ids for the same messages.
"""
from __future__ import annotations

from typing import Mapping, Sequence


class ChatTokenizerMixin:
    """``chat_template``, ``render`` and ``token_ids`` from ``self.tokenizer`` and ``self.spec``."""

    @property
    def chat_template(self) -> str:
        return getattr(self.tokenizer, "chat_template", None) or ""

    def render(self, messages: Sequence[Mapping[str, str]]) -> str:
        return self.tokenizer.apply_chat_template(
            list(messages), tokenize=False, add_generation_prompt=True, **dict(self.spec.chat_template_kwargs)
        )

    def token_ids(self, prompt: str) -> list[int]:
        # The chat template already contains BOS where the model wants one.
        return self.tokenizer(prompt, add_special_tokens=False)["input_ids"]
