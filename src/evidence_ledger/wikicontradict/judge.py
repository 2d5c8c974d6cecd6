"""WikiContradictEval: the few-shot LLM judge prompt and the strict parser of its output.

In:  a question, its gold answers (list), a model response, and few-shot examples
     (``resources/prompts/wikicontradict_fewshot.jsonl``: one JSON object per line with
     ``question`` (str), ``gold_answers`` (list of str), ``response`` (str),
     ``explanation`` (str), ``judgement`` (one of :data:`LABELS`)).
Out: the judge's user prompt (:func:`render_judge_prompt`), and from the judge's raw output
     a label in :data:`LABELS` or ``"unparseable"`` with a reason (:func:`parse_judgement`).

What comes from the paper and what is this project's own ("WikiContradict: A Benchmark for
Evaluating LLMs on Real-World Knowledge Conflicts from Wikipedia", Section 5 and Appendix C,
"Further Details on the Judge LLM Prompt"):

* The rules are the paper's: *correct* = all gold answers, their contradictory nature
  handled without preferring one (attribution to sources or alternatives are fine;
  combining incompatible answers as simultaneously true is not); *partially correct* = only
  one gold answer, a preference for one, or an extra answer not in the gold list;
  *incorrect* = none of the gold answers; numbers exact unless the gold answer states an
  approximation; entities by complete or commonly recognised names; irrelevant hallucinated
  or outdated details allowed when they do not change the primary answer.
* The wording of :data:`RUBRIC` is the project's: a paraphrase of those rules, not the
  paper's instruction text, which this repository does not have (the official WikiContradict
  repository could not be obtained); clauses of the paper's instruction beyond the rules
  above are not in it. So are its first paragraph (what the gold list means), the
  ``Judgement: <label>`` answer line and the case layout of :func:`render_judge_prompt`.
* The few-shot examples are the project's (``resources/prompts/wikicontradict_fewshot.jsonl``):
  written after the paper's worked cases (one age given -> partially correct; both ages as
  simultaneously true -> incorrect; both ages attributed to sources or as alternatives ->
  correct), not copied from them.

Any change to the prompt text (rubric, layout or examples' rendering) must bump
:data:`JUDGE_PROMPT_VERSION`, which every judgement row records; the response cache is keyed
on the rendered prompt, so a changed prompt is never answered from cached judgements.

The judge is asked to end with one line ``Judgement: <label>``. The parser is strict and
never guesses from free text; everything it cannot read is counted as unparseable.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import InputError
from ..scoring.records import read_jsonl

LABELS = ("correct", "partially correct", "incorrect")
UNPARSEABLE = "unparseable"
JUDGE_PROMPT_VERSION = 2  # 2: rubric intro also fits single-answer templates (2, 3, control)

RUBRIC = """You are judging whether a response answers a question correctly, given the list of correct answers. When the list holds several answers, they come from passages that contradict each other, and each of them is acceptable.

Label the response with exactly one of: correct, partially correct, incorrect.
- correct: the response gives all of the correct answers and handles their contradictory nature without preferring one of them. Attributing each answer to a different source, or presenting them as alternatives, is fine. Stating the answers as if they were all true at the same time is not correct.
- partially correct: the response gives only one of the correct answers, or it prefers one correct answer over the others, or it adds an answer that is not in the list of correct answers.
- incorrect: the response gives none of the correct answers, or it states incompatible answers as simultaneously true.
Numbers must match exactly unless the correct answer itself states an approximation. Entities should be given by their full or commonly recognised names. Extra details, even outdated or invented ones, do not matter if they do not change the main answer.

Explain your decision in one or two sentences, then write a last line of the form
Judgement: <label>"""


@dataclass(frozen=True)
class FewShotExample:
    question: str
    gold_answers: tuple[str, ...]
    response: str
    explanation: str
    judgement: str


def load_fewshot_examples(path: str | Path) -> list[FewShotExample]:
    """Read the few-shot file; every line must be a JSON object with the five fields.

    Raises ``InputError`` naming the line and field for bad JSON, a missing or mistyped
    field, or a judgement outside :data:`LABELS`. An empty file raises too.
    """
    path = Path(path)
    examples: list[FewShotExample] = []
    for lineno, rec in read_jsonl(path):
        for key in ("question", "response", "explanation", "judgement"):
            if not isinstance(rec.get(key), str) or not rec[key].strip():
                raise InputError(path, lineno, key, "missing or not a non-empty string")
        gold = rec.get("gold_answers")
        if not isinstance(gold, list) or not gold or not all(isinstance(g, str) and g for g in gold):
            raise InputError(path, lineno, "gold_answers", "must be a non-empty list of strings")
        if rec["judgement"] not in LABELS:
            raise InputError(path, lineno, "judgement", f"{rec['judgement']!r} is not one of {list(LABELS)}")
        examples.append(FewShotExample(rec["question"], tuple(gold), rec["response"],
                                       rec["explanation"], rec["judgement"]))
    if not examples:
        raise InputError(path, None, None, "no few-shot examples in file")
    return examples


def _case_block(question: str, gold_answers: Sequence[str], response: str) -> str:
    answers = "\n".join(f"- {a}" for a in gold_answers)
    return f"Question: {question}\nCorrect answers:\n{answers}\nResponse: {response}"


def render_judge_prompt(question: str, gold_answers: Sequence[str], response: str,
                        examples: Sequence[FewShotExample]) -> str:
    """The judge's single user message: rubric, worked examples, then the case to judge.

    The case ends with ``Explanation:`` so the judge continues in the examples' format.
    """
    if not gold_answers:
        raise ValueError("the judge needs at least one gold answer")
    parts = [RUBRIC, ""]
    for i, ex in enumerate(examples, start=1):
        parts.append(f"Example {i}")
        parts.append(_case_block(ex.question, ex.gold_answers, ex.response))
        parts.append(f"Explanation: {ex.explanation}\nJudgement: {ex.judgement}")
        parts.append("")
    parts.append("Now judge this response.")
    parts.append(_case_block(question, gold_answers, response))
    parts.append("Explanation:")
    return "\n".join(parts)


_JUDGEMENT_LINE = re.compile(r"judge?ment\s*:\s*(correct|partially correct|incorrect)\s*\.?", re.IGNORECASE)
_NEW_CASE = re.compile(r"^(question|example\s+\d+)\s*:?", re.IGNORECASE)
_MARKUP = str.maketrans("", "", "*_`#>")


@dataclass(frozen=True)
class ParsedJudgement:
    label: str  # one of LABELS or UNPARSEABLE
    reason: str  # "" when parsed; else why it is unparseable


def parse_judgement(raw: str) -> ParsedJudgement:
    """Read the label from the judge's raw output.

    Rules (strict; nothing is inferred from free text):
    * Output is cut before the first line that starts a new case (``Question:`` or
      ``Example N``): small judges often continue the few-shot pattern and judge an invented case.
    * A judgement line is a whole line ``Judgement: <label>`` (also the spelling
      ``Judgment``), case-insensitive, markdown ``*_`#>`` removed, optional trailing period.
      ``Judgement: partially correct`` is never read as ``correct``.
    * No judgement line -> unparseable (``no judgement line``); judgement lines with
      different labels -> unparseable (``conflicting judgements``); repeated identical
      lines are one judgement.
    """
    if raw is None or not raw.strip():
        return ParsedJudgement(UNPARSEABLE, "empty output")
    kept: list[str] = []
    for i, line in enumerate(raw.splitlines()):
        clean = line.translate(_MARKUP).strip()
        if i > 0 and _NEW_CASE.match(clean):
            break
        kept.append(clean)
    found = []
    for clean in kept:
        m = _JUDGEMENT_LINE.fullmatch(clean)
        if m:
            found.append(m.group(1).lower())
    if not found:
        return ParsedJudgement(UNPARSEABLE, "no judgement line")
    if len(set(found)) > 1:
        return ParsedJudgement(UNPARSEABLE, "conflicting judgements: " + ", ".join(sorted(set(found))))
    return ParsedJudgement(found[0], "")
