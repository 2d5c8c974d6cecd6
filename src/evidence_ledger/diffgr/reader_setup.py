"""DiffGR reader setup as the official reader (RetrieveOrGenerated ``read.py``) runs it.

In:  CONFLICT_QA_RECORDS rows (file order) and a shuffle seed; a model's name, its Hub id and
     the ``diffgr.reader_system_message`` config block.
Out: the per-question context arrangement of the official ``--merge_order random`` run, and
     the system message a reader model is sent.

* Random context order. ``read.py`` calls ``random.seed(4)`` once at import and then, for
  every item of the generated-passage file in file order, builds
  ``ctxs = generated_passage[:1] + retrieved_passage[:1]``, calls ``random.shuffle(ctxs)``
  and writes ``ctxs`` into its output record. :func:`random_arrangements` takes each
  question's arrangement from that recorded ``ctxs`` when the records carry it (any subset,
  any order). Records without it are replayed: :func:`official_random_arrangements` redraws
  the shuffles with a private ``random.Random(seed)`` (the same Mersenne-Twister stream as
  the module-level functions), one two-element shuffle per question in record order. A
  replay is right only for the complete released file in its original order (on a subset
  about half of the draws land on other questions), so a file without ``ctxs`` whose question
  count is not the release's (:data:`RELEASED_QUESTIONS`) is refused.
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

from ..benchmark_registry import CONFLICT_QA_RELEASES
from ..errors import InputError

from ..vocabulary import DIFFGR_GENERATED_FIRST as GENERATED_FIRST
from ..vocabulary import DIFFGR_RETRIEVED_FIRST as RETRIEVED_FIRST


#: Questions in the released NQ-CC / TQA-CC reader files (the benchmark registry's entry)
RELEASED_QUESTIONS = CONFLICT_QA_RELEASES


def recorded_arrangement(ctxs: Sequence[str], generated: Sequence[str], retrieved: str) -> str | None:
    """``generated_first`` / ``retrieved_first`` from a recorded ``ctxs`` pair; None when
    ``ctxs`` is not two passages: the first retrieved passage and one of the generated ones."""
    ctxs = list(ctxs)
    if len(ctxs) == 2 and ctxs[1] == retrieved and ctxs[0] in generated:
        return GENERATED_FIRST
    if len(ctxs) == 2 and ctxs[0] == retrieved and ctxs[1] in generated:
        return RETRIEVED_FIRST
    return None


def _from_ctxs(record: Mapping) -> str:
    arrangement = recorded_arrangement(record["ctxs"], record["generated_passages"],
                                       (record["retrieved_passages"] or [""])[0])
    if arrangement is None:
        raise InputError(record.get("source_file"), record.get("source_line"), "ctxs",
                         "ctxs must be the first retrieved passage and a generated passage, in the order the "
                         f"reader saw them; got {len(record['ctxs'])} passage(s) that are not that pair")
    return arrangement


def random_arrangements(records: Sequence[Mapping], seed: int) -> list[str]:
    """Per record, the arrangement of the official random merge: from each record's ``ctxs``
    when every record has one; else replayed from ``seed`` over the records, which must then be
    the complete released file of their dataset (:data:`RELEASED_QUESTIONS`).

    Raises ``InputError`` (the records' file, the ``ctxs`` field) when a ``ctxs`` is not the
    question's passage pair, when only some records carry ``ctxs``, or when none do and the
    question count is not the release's.
    """
    records = list(records)
    if not records:
        return []
    source = records[0].get("source_file") or "the records file"
    missing = [r for r in records if r.get("ctxs") is None]
    if not missing:
        return [_from_ctxs(r) for r in records]
    if len(missing) < len(records):
        first = missing[0]
        raise InputError(source, first.get("source_line"), "ctxs",
                         f"{len(missing)} of {len(records)} records carry no ctxs; the random context order "
                         f"is taken from ctxs only when every record has it")
    dataset = str(records[0].get("dataset"))
    expected = RELEASED_QUESTIONS.get(dataset)
    if expected is None or len(records) != expected:
        raise InputError(source, None, "ctxs",
                         f"no record carries ctxs (the order the official reader showed the passages in), and "
                         f"the file holds {len(records)} questions, not the complete {dataset} release "
                         f"({expected} questions): replaying the official shuffle by position is right only "
                         f"for the complete file in its original order. Give the official reader output with "
                         f"its ctxs field, or the complete released file")
    return official_random_arrangements(len(records), seed)


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
