"""Reading a KILT gold file and a KILT prediction file, validated, and pairing them by id.

In:  two KILT JSON-lines files (one record per line: ``id``, ``input``, ``output``: a list of
     ``{"answer": ..., "provenance": [...]}``). Out: the gold items (:func:`read_kilt_gold`:
     ``{"id", "line", "record"}`` dicts in file order, held: the gold file is small) and the
     prediction file as a stream (:class:`PairedPredictions`): one line at a time, validated and
     paired with its gold item by id, so that a caller keeps what it computes from a line and
     never the file; plus the count of prediction ids not in the gold file.

Ids compare as KILT compares them, ``str(id).strip()`` (``5`` and ``"5"`` are one item).
Errors (:class:`~evidence_ledger.errors.InputError`, naming file, line and field): a line
that is not a JSON object, an id missing or not a string/number, an id given twice (gold or
prediction), a gold item whose ``output`` is not a non-empty list of objects or that has no
non-empty string answer, a gold answer or title that is not a string, a prediction whose
``output`` is not exactly one object (KILT demands exactly one) or has no ``answer``, an
answer that is a list or an object, a ``provenance`` that is not a list of objects, a
provenance ``text`` or ``title`` that is not a string (or null), and a gold id without a
prediction (raised once the whole prediction file is read, so a bad line comes first, as it
would if the file were read whole). For retrieval only (``eval_retrieval``'s own rules)
answers are not needed and the scored output is the one output that has ``provenance``
(exactly one, else an error). Accepted and counted: a prediction id not in the gold file (KILT
aligns predictions to the gold ids and drops the others; counted as
``predictions_not_in_gold``, warned), and a non-string scalar answer (scored as
``str(answer)``, as KILT does; ``non_string_answers``).
"""
from __future__ import annotations

import warnings
from itertools import repeat
from typing import Iterator, Sequence

from evidence_ledger.errors import InputError
from evidence_ledger.files.jsonl import iter_jsonl

ABSENT = object()  # a provenance entry without the field (allowed: nothing to check)
TEXT_TYPES = frozenset((str, type(ABSENT)))  # what a provenance text field may hold (null: only where nullable)


def item_id(record: dict, path, line: int) -> str:
    """``str(id).strip()`` of a record whose ``id`` is a string or a number."""
    if "id" not in record:
        raise InputError(path, line, "id", "missing (KILT matches predictions to gold items by id)")
    value = record["id"]
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(path, line, "id", f"expected a string or a number, got {type(value).__name__}")
    return str(value).strip()


def check_provenance(output: dict, path, line: int, text_fields: Sequence[str], nullable: bool = False) -> None:
    """``provenance``, when present, is a list of objects whose ``text_fields``, where present, are
    strings; ``nullable``: null is accepted too (a gold ``title``: KILT skips an empty one), else
    null is refused (a predicted ``text``: KILT's in-context metrics normalise it as a string).
    Checked with C-level maps over the list, since a ranked list may cite 1,000 pages
    (``dict.get`` refuses an entry that is not an object, so one pass per field checks both)."""
    if "provenance" not in output:
        return
    provenance = output["provenance"]
    if not isinstance(provenance, list):
        raise InputError(path, line, "provenance", "expected a list of objects")
    allowed = TEXT_TYPES | ({type(None)} if nullable else set())
    for field in text_fields:
        try:
            types = set(map(type, map(dict.get, provenance, repeat(field), repeat(ABSENT))))
        except TypeError:
            raise InputError(path, line, "provenance", "expected a list of objects") from None
        if not allowed.issuperset(types):
            bad = next(entry[field] for entry in provenance
                       if field in entry and type(entry[field]) not in allowed)
            raise InputError(path, line, f"provenance.{field}",
                             f"expected a string, got {'null' if bad is None else type(bad).__name__}")


def check_gold_record(record: dict, path, line: int, require_answer: bool = True) -> None:
    """The gold record's ``output`` (non-empty list of objects with string answers, at least
    one non-empty unless not ``require_answer``) and ``input`` (a string when present)."""
    outputs = record.get("output")
    if not isinstance(outputs, list) or not outputs or not all(isinstance(o, dict) for o in outputs):
        raise InputError(path, line, "output", "expected a non-empty list of objects")
    if "input" in record and not isinstance(record["input"], str):
        raise InputError(path, line, "input", f"expected a string, got {type(record['input']).__name__}")
    for output in outputs:
        answer = output.get("answer")
        if answer is not None and not isinstance(answer, str):
            raise InputError(path, line, "answer", f"expected a string, got {type(answer).__name__}")
        check_provenance(output, path, line, ("title",), nullable=True)
    if require_answer and not any(isinstance(o.get("answer"), str) and o["answer"].strip() for o in outputs):
        raise InputError(path, line, "output", "no gold answer (every output's answer is missing or empty): "
                                               "the item cannot be scored")


def read_kilt_gold(path, *, require_answer: bool = True) -> list[dict]:
    """The validated gold items of ``path``: ``{"id": str, "line": int, "record": dict}`` in file
    order (``require_answer=False``: items without any answer are accepted, for retrieval only)."""
    items = []
    first: dict[str, int] = {}
    for line, record in iter_jsonl(path):
        key = item_id(record, path, line)
        if key in first:
            raise InputError(path, line, "id", f"id {key!r} occurs twice (lines {first[key]} and {line})")
        first[key] = line
        check_gold_record(record, path, line, require_answer)
        items.append({"id": key, "line": line, "record": record})
    return items


def retrieval_output(record: dict, path, line: int) -> dict:
    """The one output with ``provenance`` of a prediction record (``eval_retrieval.filter_answers``)."""
    outputs = record.get("output")
    if not isinstance(outputs, list) or not all(isinstance(output, dict) for output in outputs):
        raise InputError(path, line, "output", "expected a list of objects")
    with_provenance = [output for output in outputs if "provenance" in output]
    if len(with_provenance) != 1:
        raise InputError(path, line, "output", f"KILT's retrieval scoring demands exactly one output with provenance, "
                                               f"got {len(with_provenance)}")
    check_provenance(with_provenance[0], path, line, ("text",))
    return with_provenance[0]


def check_prediction_record(record: dict, path, line: int) -> dict:
    """The one output object of a prediction record, validated."""
    outputs = record.get("output")
    if not isinstance(outputs, list) or len(outputs) != 1 or not isinstance(outputs[0], dict):
        got = f"{len(outputs)} outputs" if isinstance(outputs, list) else ("none" if outputs is None
                                                                            else type(outputs).__name__)
        raise InputError(path, line, "output", f"KILT demands exactly one output object per prediction, got {got}")
    output = outputs[0]
    if "answer" not in output:
        raise InputError(path, line, "answer", "missing (the one output needs an answer)")
    if isinstance(output["answer"], (list, dict)):
        raise InputError(path, line, "answer", f"expected a string, got {type(output['answer']).__name__}")
    check_provenance(output, path, line, ("text",))
    return output


class PairedPredictions:
    """A KILT prediction file as a stream: iterating reads it one line at a time and yields
    ``(gold position, output)`` for every line whose id is a gold id, the output validated
    (``retrieval_only``: the one output with provenance, answers not needed). Only the ids
    seen and their lines are kept. Once read through: a gold id without a prediction is an
    error (the first in gold order), and ``extra`` is the number of prediction ids not in the
    gold file (dropped, as KILT drops them; warned)."""

    def __init__(self, gold: Sequence[dict], gold_path, predictions_path, *, retrieval_only: bool = False):
        self.gold, self.gold_path, self.path = gold, gold_path, predictions_path
        self.check = retrieval_output if retrieval_only else check_prediction_record
        self.extra = 0

    def __iter__(self) -> Iterator[tuple[int, dict]]:
        position_of = {item["id"]: position for position, item in enumerate(self.gold)}
        seen: dict[str, int] = {}
        for line, record in iter_jsonl(self.path):
            key = item_id(record, self.path, line)
            if key in seen:
                raise InputError(self.path, line, "id", f"id {key!r} predicted twice (first at line {seen[key]})")
            seen[key] = line
            output = self.check(record, self.path, line)
            if key in position_of:
                yield position_of[key], output
        for item in self.gold:
            if item["id"] not in seen:
                raise InputError(self.gold_path, item["line"], "id",
                                 f"id {item['id']!r} has no prediction in {self.path}")
        self.extra = len(seen) - len(self.gold)
        if self.extra:
            warnings.warn(f"{self.extra} prediction ids of {self.path} are not in the gold file {self.gold_path}: "
                          f"not scored, as in KILT (counted as 'predictions_not_in_gold')", stacklevel=3)
