"""The two stand-in families of the demo's chat models: what a Qwen3-style and a Llama-3.1-style LM are.

In:  nothing.
Out: :class:`TinyArch` (architecture class, special tokens, begin/end/stop/padding tokens, chat
     template) and :data:`ARCHS`, by family name (``qwen3``, ``llama31``), read by
     ``tiny_models`` (which builds and trains the models) and ``real_tokenizers`` (which adapts a
     family to a real model's tokenizer).

The chat templates follow the real models: Qwen3 renders ``<|im_start|>role\\n...<|im_end|>`` and,
with ``enable_thinking=False``, the empty ``<think>\\n\\n</think>\\n\\n`` block after the
assistant header; Llama 3.1 renders ``<|begin_of_text|>``, a system header with the
knowledge-cutoff lines, ``<|start_header_id|>role<|end_header_id|>\\n\\n...<|eot_id|>``.
"""
from __future__ import annotations

from dataclasses import dataclass

QWEN3_CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}"
    "{{- '<|im_start|>assistant\\n' -}}"
    "{%- if enable_thinking is defined and enable_thinking is false -%}"
    "{{- '<think>\\n\\n</think>\\n\\n' -}}"
    "{%- endif -%}"
    "{%- endif -%}"
)

LLAMA31_CHAT_TEMPLATE = (
    "{{- bos_token -}}"
    "{%- if messages[0]['role'] == 'system' -%}"
    "{%- set system_message = messages[0]['content'] | trim -%}"
    "{%- set messages = messages[1:] -%}"
    "{%- else -%}{%- set system_message = '' -%}{%- endif -%}"
    "{{- '<|start_header_id|>system<|end_header_id|>\\n\\n' -}}"
    "{{- 'Cutting Knowledge Date: December 2023\\nToday Date: 26 Jul 2024\\n\\n' -}}"
    "{{- system_message + '<|eot_id|>' -}}"
    "{%- for message in messages -%}"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}"
    "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}"
    "{%- endif -%}"
)


@dataclass(frozen=True)
class TinyArch:
    name: str
    architecture: str
    special_tokens: tuple[str, ...]
    bos: str | None
    eos: str  # end-of-turn token the tokenizer reports as eos
    stop: tuple[str, ...]  # generation stops at any of these
    pad: str
    chat_template: str


ARCHS = {
    "qwen3": TinyArch(
        "qwen3", "Qwen3ForCausalLM",
        ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"),
        None, "<|im_end|>", ("<|im_end|>", "<|endoftext|>"), "<|endoftext|>", QWEN3_CHAT_TEMPLATE,
    ),
    "llama31": TinyArch(
        "llama31", "LlamaForCausalLM",
        ("<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
         "<|finetune_right_pad_id|>"),
        "<|begin_of_text|>", "<|eot_id|>", ("<|eot_id|>", "<|end_of_text|>"), "<|finetune_right_pad_id|>",
        LLAMA31_CHAT_TEMPLATE,
    ),
}
