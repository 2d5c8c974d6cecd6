"""Answer parsers for fact-verification responses: strict and lenient.

In:  a raw model response, the answer format (``codes`` / ``labels``), the dataset's label
     strings and, for codes, the letter -> label mapping the prompt used.
Out: a canonical label (FEVER/FEVEROUS ``SUPPORTS``/``REFUTES``/``NOT ENOUGH INFO``;
     SciFact ``SUPPORT``/``CONTRADICT``/``NOINFO``) or ``INVALID``.

Neither parser ever sees the gold label.

Both parsers first drop end-of-turn special tokens at the end of the response
(``<|im_end|>``, ``<|endoftext|>``, ``<|eot_id|>``, ``<|end_of_text|>``, with any whitespace
between them): a backend that decodes without ``skip_special_tokens`` shows the token the model
stopped on, which is not part of the answer.

* :func:`parse_strict` - the protocol's parser: after stripping surrounding whitespace the
  response must be exactly one code letter (``A``/``B``/``C``, upper case) or exactly one
  label string (exact case). Anything else is ``INVALID``.
* :func:`parse_lenient` - the lenient parser: it accepts only unambiguous surface
  variants: any letter case; surrounding quotes, brackets, asterisks or backticks
  (``(A)``, ``**B**``, ``"SUPPORTS"``); an ``Answer:`` / ``The answer is`` / ``Label:``
  prefix; trailing punctuation; a leading ``<think>...</think>`` block (empty, or a stray
  reasoning block: its content is never read for an answer); a single answer
  followed by an explanation. It refuses (``INVALID``) a response that names a second,
  different answer in upper case (``A or B``, ``SUPPORTS, not REFUTES``), a letter followed
  directly by a word (``A claim ...`` could be the article), or a label that disagrees with
  the letter it accompanies (``A = REFUTES`` when A means SUPPORTS). Labels are matched as
  whole words with space, ``_`` or ``-`` between the words of multi-word labels
  (``not_enough_info``); no synonyms or inflections (``SUPPORTED`` stays INVALID).
"""
from __future__ import annotations

import re
from typing import Mapping, Sequence

import pyarrow as pa

from ..tables.generation import PARSED
from ..vocabulary import INVALID, parsed_format
from . import prompts

_THINK = re.compile(r"^<think>.*?</think>\s*", re.IGNORECASE | re.DOTALL)
END_OF_TURN_TOKENS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>")
_END_OF_TURN = re.compile("(?:\\s*(?:" + "|".join(re.escape(t) for t in END_OF_TURN_TOKENS) + "))+\\s*$")
_PREFIX = re.compile(
    r"^(?:the\s+)?(?:final\s+|correct\s+)?(?:answer|label|verdict|option|choice)\s*(?:is)?\s*[:=\-]?\s*",
    re.IGNORECASE,
)
_OPEN = "([{*\"'`"
_CLOSE = ")]}*\"'`"


def parse_strict(text: str, answer_format: str, labels: Sequence[str], code_map: Mapping[str, str] | None = None) -> str:
    """Exactly one code (codes format) or one exact label (labels format), else ``INVALID``
    (after dropping end-of-turn tokens at the end: module doc)."""
    s = without_end_of_turn(text).strip()
    if answer_format == "codes":
        if code_map is None:
            raise ValueError("codes format needs the letter -> label mapping")
        return code_map.get(s, INVALID)
    if answer_format == "labels":
        return s if s in labels else INVALID
    raise ValueError(f"unknown answer format {answer_format!r}")


def without_end_of_turn(text: str | None) -> str:
    """``text`` without the end-of-turn special tokens (and whitespace) at its end."""
    return _END_OF_TURN.sub("", text or "")


def _label_pattern(label: str) -> str:
    return r"[\s_\-]+".join(re.escape(w) for w in label.split())


def _strip_wrappers(s: str) -> str:
    s = _THINK.sub("", s.strip())
    s = _PREFIX.sub("", s)
    return s.strip()


def _mentions(rest: str, candidates: Sequence[str]) -> set[str]:
    """Candidates named in ``rest`` as whole words in upper case (shouted answers only)."""
    found = set()
    for c in candidates:
        if re.search(r"(?<![\w])" + _label_pattern(c) + r"(?![\w])", rest):
            found.add(c)
    return found


def parse_lenient(text: str, answer_format: str, labels: Sequence[str], code_map: Mapping[str, str] | None = None) -> str:
    """Conservative parser: unambiguous surface variants only (see module docstring)."""
    strict = parse_strict(text, answer_format, labels, code_map)
    if strict != INVALID:
        return strict
    s = _strip_wrappers(without_end_of_turn(text))
    if answer_format == "codes":
        codes = sorted(code_map)
        m = re.match(
            r"^[" + re.escape(_OPEN) + r"]*\s*([" + "".join(codes) + "".join(c.lower() for c in codes) + r"])"
            r"\s*[" + re.escape(_CLOSE) + r"]*"
            r"(?:\s*$|\s*([.,;:!?=\-(\n])(.*))",
            s,
            re.DOTALL,
        )
        if not m:
            return INVALID
        code = m.group(1).upper()
        rest = m.group(3) or ""
        answer = code_map[code]
        other_codes = re.findall(r"(?<![\w])([" + "".join(codes) + r"])(?![\w])", rest)
        if any(c != code for c in other_codes):
            return INVALID
        named = _mentions(rest, labels)
        if named - {answer}:
            return INVALID
        return answer
    # labels
    alternation = "|".join(_label_pattern(lab) for lab in sorted(labels, key=len, reverse=True))
    m = re.match(
        r"^[" + re.escape(_OPEN) + r"]*\s*(" + alternation + r")(?![\w])\s*[" + re.escape(_CLOSE) + r"]*(.*)$",
        s,
        re.DOTALL | re.IGNORECASE,
    )
    if not m:
        return INVALID
    said = re.sub(r"[\s_\-]+", " ", m.group(1)).upper()
    answer = next(lab for lab in labels if lab.upper() == said)
    if _mentions(m.group(2), labels) - {answer}:
        return INVALID
    return answer


def parse_responses(requests, responses, code_mappings: Mapping[str, Mapping[str, str]]):
    """Join REQUESTS rows to their RESPONSES and parse each with both parsers.

    In:  ``requests`` / ``responses`` as ``pyarrow.Table`` (REQUESTS, RESPONSES schemas);
         ``code_mappings`` name -> {letter: role} (the config's primary + alternatives).
    Out: ``(parsed, failures)``: the PARSED table (one row per request row, in request
         order; alternative code mappings as format ``codes:{name}``) and a list of rows
         ``{model, dataset, format, n, strict_invalid, strict_invalid_rate, lenient_invalid,
         lenient_invalid_rate}`` per format. A request without a response raises.
    """
    by_id = {r["request_id"]: r for r in responses.select(["request_id", "cache_key", "raw_response"]).to_pylist()}
    rows = []
    stats: dict[str, list[int]] = {}
    for req in requests.to_pylist():
        resp = by_id.get(req["request_id"])
        if resp is None:
            raise ValueError(f"no response for request {req['request_id']} "
                             f"(claim {req['claim_id']}, {req['source']}/{req['budget']}/{req['format']})")
        labels = prompts.labels_for(req["dataset"])
        cmap = None
        fmt = parsed_format(req["format"], req["code_mapping"])
        if req["format"] == "codes":
            cmap = prompts.code_to_label(req["dataset"], code_mappings[req["code_mapping"]])
        text = resp["raw_response"]
        strict = parse_strict(text, req["format"], labels, cmap)
        lenient = parse_lenient(text, req["format"], labels, cmap)
        rows.append({
            "model": req["model"], "dataset": req["dataset"], "claim_id": req["claim_id"],
            "doc_id": req["doc_id"], "source": req["source"], "budget": req["budget"], "format": fmt,
            "replicate": req["replicate"], "seed": req["seed"], "request_key": resp["cache_key"],
            "raw_response": text, "strict_label": strict, "lenient_label": lenient,
        })
        s = stats.setdefault((req["model"], req["dataset"], fmt), [0, 0, 0])
        s[0] += 1
        s[1] += strict == INVALID
        s[2] += lenient == INVALID
    failures = [
        {"model": m, "dataset": d, "format": f, "n": n,
         "strict_invalid": si, "strict_invalid_rate": si / n,
         "lenient_invalid": li, "lenient_invalid_rate": li / n}
        for (m, d, f), (n, si, li) in sorted(stats.items())
    ]
    return pa.Table.from_pylist(rows, schema=PARSED.schema), failures
