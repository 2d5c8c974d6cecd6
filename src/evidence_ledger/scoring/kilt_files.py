"""Reading a KILT gold file and a KILT prediction file, validated, and pairing them by id.

In:  two KILT JSON-lines files (one record per line: ``id``, ``input``, ``output``: a list of
     ``{"answer": ..., "provenance": [...]}``). Out: the gold items (:func:`read_kilt_gold`:
     ``{"id", "line", "record"}`` dicts in file order) and, per gold item, its prediction
     (:func:`pair_kilt_predictions`), plus the counts of what was accepted but is odd.

Ids compare as KILT compares them, ``str(id).strip()`` (``5`` and ``"5"`` are one item).
Errors (:class:`~evidence_ledger.errors.InputError`, naming file, line and field): a line
that is not a JSON object, an id missing or not a string/number, an id given twice (gold or
prediction), a gold item whose ``output`` is not a non-empty list of objects or that has no
non-empty string answer, a gold answer or title that is not a string, a prediction whose
``output`` is not exactly one object (KILT demands exactly one) or has no ``answer``, an
answer that is a list or an object, a ``provenance`` that is not a list of objects, a
provenance ``text`` or ``title`` that is not a string (or null), and a gold id without a
prediction. For retrieval only (``eval_retrieval``'s own rules) answers are not needed and
the scored output is the one output that has ``provenance`` (exactly one, else an error). Accepted and
counted: a prediction id not in the gold file (KILT aligns predictions to the gold ids and
drops the others; counted as ``predictions_not_in_gold``, warned), and a non-string scalar
answer (scored as ``str(answer)``, as KILT does; ``non_string_answers``).
"""
from __future__ import annotations

import warnings
from typing import Sequence

from evidence_ledger.errors import InputError
from evidence_ledger.files.jsonl import read_jsonl


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
    null is refused (a predicted ``text``: KILT's in-context metrics normalise it as a string)."""
    if "provenance" not in output:
        return
    provenance = output["provenance"]
    if not isinstance(provenance, list) or not all(isinstance(entry, dict) for entry in provenance):
        raise InputError(path, line, "provenance", "expected a list of objects")
    for entry in provenance:
        for field in text_fields:
            if field not in entry or isinstance(entry[field], str) or (nullable and entry[field] is None):
                continue
            raise InputError(path, line, f"provenance.{field}",
                             f"expected a string, got {'null' if entry[field] is None else type(entry[field]).__name__}")


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
    for line, record in read_jsonl(path):
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


def read_kilt_predictions(path, *, retrieval_only: bool = False) -> dict[str, tuple[int, dict]]:
    """Per id, ``(line, output)`` of the validated prediction records of ``path``
    (``retrieval_only``: the one output with provenance, answers not needed)."""
    check = retrieval_output if retrieval_only else check_prediction_record
    predictions: dict[str, tuple[int, dict]] = {}
    for line, record in read_jsonl(path):
        key = item_id(record, path, line)
        if key in predictions:
            raise InputError(path, line, "id", f"id {key!r} predicted twice (first at line {predictions[key][0]})")
        predictions[key] = (line, check(record, path, line))
    return predictions


def pair_kilt_predictions(gold: Sequence[dict], predictions: dict[str, tuple[int, dict]], gold_path,
                          predictions_path) -> tuple[list[dict], int]:
    """Per gold item (gold order) its prediction's one output, and the number of prediction
    ids not in the gold file (dropped, as KILT drops them; warned)."""
    outputs = []
    for item in gold:
        if item["id"] not in predictions:
            raise InputError(gold_path, item["line"], "id",
                             f"id {item['id']!r} has no prediction in {predictions_path}")
        outputs.append(predictions[item["id"]][1])
    extra = len(predictions) - len(gold)
    if extra:
        warnings.warn(f"{extra} prediction ids of {predictions_path} are not in the gold file {gold_path}: not "
                      f"scored, as in KILT (counted as 'predictions_not_in_gold')", stacklevel=2)
    return outputs, extra
