"""DiffGR reader setup as the official reader (RetrieveOrGenerated ``read.py``) runs it.

In:  the number of questions (in file order), a shuffle seed; a model's name, its Hub id and
     the ``diffgr.reader_system_message`` config block.
Out: the per-question context arrangement of the official ``--merge_order random`` run, and
     the system message a reader model is sent.

* Random context order. ``read.py`` calls ``random.seed(4)`` once at import and then, for
  every item of the generated-passage file in file order, builds
  ``ctxs = generated_passage[:1] + retrieved_passage[:1]`` and calls ``random.shuffle(ctxs)``.
  :func:`official_random_arrangements` replays exactly that draw sequence with a private
  ``random.Random(seed)`` (the same Mersenne-Twister stream as the module-level functions),
  one two-element shuffle per question in record order.
* Reader system message. The official Llama reader (``src/model_llama.py``, ``Read_llama``)
  sends a system instruction fixing the answer format (":%d," with the example
  ":Joe Biden"); chat models without it answer in other shapes. The message is per model:
  an explicit entry under ``models`` wins (``""`` = no system message); otherwise a model
  whose Hub id or name contains one of ``families`` (case-insensitive) gets ``default``; any
  other model gets none.
"""
from __future__ import annotations

import random
from typing import Mapping, Sequence

from ..vocabulary import DIFFGR_GENERATED_FIRST as GENERATED_FIRST
from ..vocabulary import DIFFGR_RETRIEVED_FIRST as RETRIEVED_FIRST


def official_random_arrangements(n_items: int, seed: int) -> list[str]:
    """Per question (record order), which passage the official random merge put first.

    ``generated_first`` or ``retrieved_first`` for each of ``n_items`` questions: the result
    of ``random.shuffle(["generated", "retrieved"])`` after ``random.seed(seed)``, one shuffle
    per question, as ``read.py`` does with ``--merge_order random`` (seed 4 there).
    """
    rng = random.Random(seed)
    out = []
    for _ in range(int(n_items)):
        ctxs = ["generated", "retrieved"]
        rng.shuffle(ctxs)
        out.append(GENERATED_FIRST if ctxs[0] == "generated" else RETRIEVED_FIRST)
    return out


def reader_system_message(model: str, hub_id: str, default: str, families: Sequence[str],
                          overrides: Mapping[str, str] | None = None) -> str:
    """The reader system message of ``model`` ('' = none); see the module docstring."""
    overrides = overrides or {}
    if model in overrides:
        return str(overrides[model] or "")
    names = f"{hub_id or ''} {model}".lower()
    if any(f.lower() in names for f in families):
        return default
    return ""


def reader_system_message_from_config(model: str, model_cfg: Mapping, block: Mapping | None) -> str:
    """:func:`reader_system_message` from a ``models:`` entry and ``diffgr.reader_system_message``
    (``default``, ``families``, ``models``); no block -> ''."""
    block = block or {}
    return reader_system_message(model, str(model_cfg.get("hub_id") or ""), str(block.get("default") or ""),
                                 list(block.get("families") or []), dict(block.get("models") or {}))
