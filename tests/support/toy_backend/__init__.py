"""A generation backend added without editing the package: the example of docs/backends.md.

Registered in config (``generation.backend_plugins: {toy: "toy_backend:ToyBackend"}`` with this
directory's parent on ``PYTHONPATH``) or by an installed package's entry point (group
``evidence_ledger.generation_backends``, ``toy = "toy_backend:ToyBackend"``), and chosen per model
(``models.<name>.backend: toy``; its options under ``models.<name>.backend_options``).

It "generates" without a model: a greedy request gets the first of ``answers``, a sampled one a
choice drawn with its own seed (so it repeats, whatever else shares its call). It takes chat
messages as they are (``generate_chat``; no chat template), and its provenance names the devices
the job was given (``CUDA_VISIBLE_DEVICES``), which the GPU-slot tests read.
"""
from __future__ import annotations

import os
import random
from typing import Any, Callable, Sequence

from evidence_ledger.generation.backends import Backend, ChatRequest, Generation, ModelSpec


class ToyBackend(Backend):
    name = "toy"  # goes into every cache key and the RESPONSES `backend` column

    def __init__(self, spec: ModelSpec, *, answers: Sequence[str] = ("A", "B", "C"), **_other_backends_options: Any):
        super().__init__(spec)
        self.answers = [str(a) for a in answers]

    def settings(self) -> dict[str, Any]:
        return {"answers": self.answers}  # changes the outputs: part of the cache key

    def provenance(self) -> dict[str, Any]:
        return {"library_versions": "", "prefix_caching": False,
                "device": f"cpu (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '')})"}

    def generate_chat(self, requests: Sequence[ChatRequest],
                      on_result: Callable[[int, Generation], None] | None = None) -> list[Generation]:
        out = []
        for i, request in enumerate(requests):
            sampling = request.sampling
            text = self.answers[0] if sampling.greedy else random.Random(sampling.seed).choice(self.answers)
            prompt_words = sum(len(content.split()) for _, content in request.messages)
            out.append(Generation(text, n_prompt_tokens=prompt_words, n_output_tokens=1, finish_reason="stop"))
            if on_result is not None:
                on_result(i, out[-1])
        return out
