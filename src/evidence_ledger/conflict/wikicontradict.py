"""WikiContradict prompt templates (versioned data) and prompt rendering.

In:  WikiContradict instances (question, passage 1 / 2, answer 1 / 2, conflict type, whether
     both statements come from the same passage) as :class:`Instance`.
Out: one rendered user prompt per (instance, template), with the gold-answer list the judge
     compares the response against.

Templates follow the paper's Section 3.4 and Appendix B (Hou et al., 2024, arXiv 2406.13805):

=========  =====================================================  ============================
id         context                                                gold answers for the judge
=========  =====================================================  ============================
1          none (internal knowledge)                              answer 1 and answer 2
2          passage 1                                              answer 1
3          passage 2                                              answer 2
4          passage 1, passage 2                                   answer 1 and answer 2
5          passage 1, passage 2 + "reflect contradictory view"    answer 1 and answer 2
5.1        passage 2, passage 1 (swapped) + same instruction      answer 1 and answer 2
5.2        passage 1, passage 2; say whether they conflict,       answer 1 and answer 2
           then a short answer and an explanation
control    passage 1, passage 1 (consistent context) + the        answer 1
           template-5 instruction
=========  =====================================================  ============================

Edge-case rules (decisions, documented in config/README.md):
* ``same_passage`` instances (both conflicting statements inside one passage; the release's
  ``samepassage == "Same"``) put that passage in the context **once** for every two-passage
  template, exactly as the release's ``merged_context`` does; 5.1 then equals 5 in content.
* The consistent-context control only exists for instances whose two passages differ
  (for a same-passage instance, repeating the passage would repeat the contradiction);
  :func:`render_requests` reports how many instances it skipped for it.
* Template 1's gold list is both answers: the question has two answers in the benchmark,
  and the rubric asks for all of them.

Any change to a template's text or context rule bumps ``TEMPLATE_SET_VERSION``; the
version is written into every request row so cached responses of older texts are not mixed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

TEMPLATE_SET_VERSION = 1

_SHORT = "Provide a short answer for the following question based on the given context."
_INTERNAL = "Provide a short answer for the following question based on your internal knowledge."
_REFLECT = (
    "Carefully investigate the given context and provide a concise response that reflects the "
    "comprehensive view of the context, even if the answer contains contradictory information "
    "reflecting the heterogeneous nature of the context."
)
_DETECT = (
    "Read the context and the question. First say whether the context contains conflicting "
    "information that could lead to different answers to the question. Then give a short answer "
    "to the question and a brief explanation. Use exactly this format:\n"
    "Conflict: yes or no\nAnswer: <short answer>\nExplanation: <one or two sentences>"
)


@dataclass(frozen=True)
class Template:
    """One prompt template.

    ``context`` names the passages placed in the context, in order (``p1``/``p2``);
    ``gold`` names the gold answers the judge expects (``a1``/``a2``).
    """

    template_id: str
    instruction: str
    context: tuple[str, ...]
    gold: tuple[str, ...]
    needs_distinct_passages: bool = False
    two_passage: bool = False


TEMPLATES: dict[str, Template] = {
    t.template_id: t
    for t in (
        Template("1", _INTERNAL, (), ("a1", "a2")),
        Template("2", _SHORT, ("p1",), ("a1",)),
        Template("3", _SHORT, ("p2",), ("a2",)),
        Template("4", _SHORT, ("p1", "p2"), ("a1", "a2"), two_passage=True),
        Template("5", f"{_SHORT} {_REFLECT}", ("p1", "p2"), ("a1", "a2"), two_passage=True),
        Template("5.1", f"{_SHORT} {_REFLECT}", ("p2", "p1"), ("a1", "a2"), two_passage=True),
        Template("5.2", _DETECT, ("p1", "p2"), ("a1", "a2"), two_passage=True),
        Template("control", f"{_SHORT} {_REFLECT}", ("p1", "p1"), ("a1",),
                 needs_distinct_passages=True),
    )
}


@dataclass(frozen=True)
class Instance:
    """A WikiContradict instance. ``conflict_type`` is ``explicit`` or ``implicit``."""

    instance_id: str
    question: str
    passage1: str
    passage2: str
    answer1: str
    answer2: str
    conflict_type: str
    same_passage: bool


def template_ids() -> list[str]:
    """All template ids in canonical order."""
    return list(TEMPLATES)


def context_passages(instance: Instance, template: Template) -> list[str]:
    """The passages placed in the context, in order.

    Same-passage instances get their passage once for every two-passage template
    (the release's ``merged_context`` rule).
    """
    passages = {"p1": instance.passage1, "p2": instance.passage2}
    if template.two_passage and instance.same_passage:
        return [instance.passage1]
    return [passages[name] for name in template.context]


def gold_answers(instance: Instance, template: Template) -> list[str]:
    """The gold answers the judge checks for this template (order as in ``template.gold``)."""
    answers = {"a1": instance.answer1, "a2": instance.answer2}
    return [answers[name] for name in template.gold]


def applies(instance: Instance, template: Template) -> bool:
    """Whether ``template`` is run on ``instance`` (the control needs two distinct passages)."""
    return not (template.needs_distinct_passages and instance.same_passage)


def render_prompt(instance: Instance, template: Template) -> str:
    """The user prompt: instruction, then ``Context:`` (passages one per line), then the question.

    Template 1 has no context block. Passages are placed verbatim, joined by a newline.
    """
    if not applies(instance, template):
        raise ValueError(
            f"template {template.template_id} does not apply to instance {instance.instance_id} "
            f"(its two conflicting statements share one passage)"
        )
    parts = [template.instruction]
    passages = context_passages(instance, template)
    if passages:
        parts.append("Context: " + "\n".join(passages))
    parts.append(f"Question: {instance.question}")
    parts.append("Answer:")
    return "\n".join(parts)


def render_requests(instances: Iterable[Instance], templates: Sequence[str]) -> tuple[list[dict], dict[str, int]]:
    """Rows ``(instance_id, template, template_set_version, conflict_type, prompt, gold_answers)``.

    Row order: instances in the given order, templates in the given order. Returns the rows
    and, per template, the number of instances skipped because the template does not apply.
    Unknown template ids raise ``KeyError`` naming the known ones.
    """
    unknown = [t for t in templates if t not in TEMPLATES]
    if unknown:
        raise KeyError(f"unknown WikiContradict templates {unknown}; known: {template_ids()}")
    rows: list[dict] = []
    skipped = {t: 0 for t in templates}
    for inst in instances:
        for tid in templates:
            template = TEMPLATES[tid]
            if not applies(inst, template):
                skipped[tid] += 1
                continue
            rows.append({
                "instance_id": inst.instance_id,
                "template": tid,
                "template_set_version": TEMPLATE_SET_VERSION,
                "conflict_type": inst.conflict_type,
                "prompt": render_prompt(inst, template),
                "gold_answers": gold_answers(inst, template),
            })
    return rows, skipped


def parse_conflict_detection(response: str) -> str:
    """Template 5.2: ``yes`` / ``no`` from the response, or ``unparseable``.

    Strict: the first non-empty line must be ``Conflict: yes`` or ``Conflict: no``
    (case-insensitive, optional markdown ``*`` and a trailing period), or the response must
    start with the bare word ``yes`` / ``no`` followed by a non-letter. Anything else -
    including a later line that mentions conflict - is ``unparseable`` and counted as such.
    """
    lines = [ln.strip() for ln in response.splitlines() if ln.strip()]
    if not lines:
        return "unparseable"
    first = lines[0].replace("*", "").strip()
    m = re.fullmatch(r"(?i)conflict\s*:\s*(yes|no)\s*\.?", first)
    if m:
        return m.group(1).lower()
    m = re.match(r"(?i)(yes|no)(?![a-z])", first)
    if m:
        return m.group(1).lower()
    return "unparseable"


PASSAGE_VERSIONS = ("rag_qa", "standalone")


def instances_from_records(records: Iterable[dict], passage_version: str = "rag_qa") -> list[Instance]:
    """Instances from rows of the ingest table ``tables.conflict_inputs.WIKICONTRADICT_INSTANCES``.

    Uses ``question_id``, ``question``, ``answer1``, ``answer2``, ``contradict_type``
    (``explicit`` / ``implicit``), ``same_passage`` and the passages: ``context1`` /
    ``context2`` of the RAG-QA CSV (``passage_version="rag_qa"``) or the stand-alone versions
    ``passage1_standalone`` / ``passage2_standalone`` of the full JSON release
    (``"standalone"``; an instance without them raises ``ValueError`` naming it). Order is
    kept. An unknown ``contradict_type`` raises ``ValueError`` naming the question id.
    """
    if passage_version not in PASSAGE_VERSIONS:
        raise ValueError(f"passage_version must be one of {PASSAGE_VERSIONS}, got {passage_version!r}")
    keys = ("context1", "context2") if passage_version == "rag_qa" else ("passage1_standalone", "passage2_standalone")
    out = []
    for rec in records:
        ctype = rec["contradict_type"]
        if ctype not in ("explicit", "implicit"):
            raise ValueError(f"WikiContradict question {rec['question_id']}: contradict_type {ctype!r} "
                             f"is not 'explicit' or 'implicit'")
        p1, p2 = rec.get(keys[0]), rec.get(keys[1])
        if not p1 or not p2:
            raise ValueError(f"WikiContradict question {rec['question_id']}: no {keys[0]} / {keys[1]} "
                             f"(stand-alone passages need the full JSON release in data.wikicontradict.full_json)")
        out.append(Instance(
            instance_id=str(rec["question_id"]), question=rec["question"],
            passage1=p1, passage2=p2,
            answer1=rec["answer1"], answer2=rec["answer2"],
            conflict_type=ctype, same_passage=bool(rec["same_passage"]),
        ))
    return out
