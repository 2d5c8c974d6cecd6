"""WikiContradict prompt templates (versioned data) and prompt rendering.

In:  WikiContradict instances (question, passage 1 / 2, answer 1 / 2, conflict type, whether
     both statements come from the same passage) as :class:`Instance`.
Out: one rendered user prompt per (instance, template), with the gold-answer list the judge
     compares the response against.

Templates follow the paper's Section 3.4 and Appendix B (Hou et al., 2024, arXiv 2406.13805).
Every prompt has the paper's parts in the paper's order: the instruction, then
``Question: ...``, then ``Context: ...`` (the passages, one per line); there is no trailing
``Answer:`` cue (the paper's templates have none). The conflict-detection templates end with
the answer format they ask for, which :func:`parse_conflict_detection` parses.

===========  ===================================================  ==========================
id           context                                              gold answers for the judge
===========  ===================================================  ==========================
1            none (internal knowledge)                            answer 1 and answer 2
2            passage 1                                            answer 1
3            passage 2                                            answer 2
4            passage 1, passage 2                                 answer 1 and answer 2
5            passage 1, passage 2 + "reflect contradictory view"  answer 1 and answer 2
5.1          passage 2, passage 1 (swapped) + same instruction    answer 1 and answer 2
5.2          passage 1, passage 2; say whether they conflict,     answer 1 and answer 2
             then a short answer and an explanation
control      consistent context + the template-5 instruction      answer 1
5.2-control  consistent context + the 5.2 instruction             answer 1
===========  ===================================================  ==========================

The consistent context (the paper's Prompt 5.4) is the release's two modified consistent
passages when the instance carries them (``consistent1`` / ``consistent2``, from the full
JSON's configured fields; :func:`consistent_context_kind` ``modified_passages``), otherwise
passage 1 twice (``passage1_twice``). 5.2 on real conflicts gives the detection rate, 5.2 on
the consistent context the false-detection rate (the WikiContradict paper: the models
correctly confirm the absence of a conflict in only 44% / 48% of consistent cases, so they
wrongly detect one in about 56% / 52%).

Edge-case rules (decisions, documented in config/README.md):
* ``same_passage`` instances (both conflicting statements inside one passage) are decided
  from the text: ``context1`` and ``context2`` equal after whitespace normalisation
  (:func:`same_text`). The release's ``samepassage`` flag is kept beside it
  (``same_passage_flag``) but not trusted: it says ``Same`` for 63 of 253 instances, 62 of
  which have one passage (58 identical, 4 differing in whitespace only; instance 126 is
  flagged Same with a Shiraz and a Herat passage);
  :func:`flag_disagreements` counts the instances where flag and text disagree (shown in the
  rates table). A same-passage instance puts its passage in the context **once** for every
  two-passage template, as the release's ``merged_context`` does; 5.1 then equals 5 in content.
* Templates 2 and 3 show one passage and expect one answer each; for a same-passage
  instance no response can satisfy that, so they are **excluded** unless the stand-alone
  passages of the full JSON are used (``standalone``: the two statements then come as two
  separate passages). The passage-1-twice control is excluded for them too (repeating the
  passage would repeat the contradiction). :func:`render_requests` counts the exclusions
  per template; the metrics table shows them (:func:`excluded_counts`).
* Template 1's gold list is both answers: the question has two answers in the benchmark,
  and the rubric asks for all of them.

Any change to a template's text or context rule bumps ``TEMPLATE_SET_VERSION``; the
version is written into every request row so cached responses of older texts are not mixed.
v2: the paper's part order (instruction, question, context), no ``Answer:`` cue, 5.2 ends
with its format, same-passage exclusion from 2 / 3, the 5.2-control template, modified
consistent passages. v3: same passage decided from the text, not the release's flag.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

TEMPLATE_SET_VERSION = 3

_SHORT = "Provide a short answer for the following question based on the given context."
_INTERNAL = "Provide a short answer for the following question based on your internal knowledge."
_REFLECT = (
    "Carefully investigate the given context and provide a concise response that reflects the "
    "comprehensive view of the context, even if the answer contains contradictory information "
    "reflecting the heterogeneous nature of the context."
)
_DETECT = (
    "Read the question and the context. Does the context contain conflicting information that "
    "could lead to different answers to the question? Say so, then give a short answer to the "
    "question and a brief explanation."
)
DETECTION_FORMAT = (
    "Respond in exactly this format:\n"
    "Conflict: yes or no\nAnswer: <short answer>\nExplanation: <one or two sentences>"
)
DETECTION_TEMPLATES = ("5.2", "5.2-control")
CONSISTENT_KINDS = ("modified_passages", "passage1_twice")


@dataclass(frozen=True)
class Template:
    """One prompt template.

    ``context`` names the passages placed in the context, in order (``p1``/``p2``, or
    ``consistent`` for the consistent-context control); ``gold`` names the gold answers the
    judge expects (``a1``/``a2``); ``format_spec`` is appended after the context (the
    detection format); ``one_statement_per_passage`` marks 2 and 3, which need the two
    statements in separate passages.
    """

    template_id: str
    instruction: str
    context: tuple[str, ...]
    gold: tuple[str, ...]
    two_passage: bool = False
    one_statement_per_passage: bool = False
    format_spec: str = ""


TEMPLATES: dict[str, Template] = {
    t.template_id: t
    for t in (
        Template("1", _INTERNAL, (), ("a1", "a2")),
        Template("2", _SHORT, ("p1",), ("a1",), one_statement_per_passage=True),
        Template("3", _SHORT, ("p2",), ("a2",), one_statement_per_passage=True),
        Template("4", _SHORT, ("p1", "p2"), ("a1", "a2"), two_passage=True),
        Template("5", f"{_SHORT} {_REFLECT}", ("p1", "p2"), ("a1", "a2"), two_passage=True),
        Template("5.1", f"{_SHORT} {_REFLECT}", ("p2", "p1"), ("a1", "a2"), two_passage=True),
        Template("5.2", _DETECT, ("p1", "p2"), ("a1", "a2"), two_passage=True, format_spec=DETECTION_FORMAT),
        Template("control", f"{_SHORT} {_REFLECT}", ("consistent",), ("a1",)),
        Template("5.2-control", _DETECT, ("consistent",), ("a1",), format_spec=DETECTION_FORMAT),
    )
}


@dataclass(frozen=True)
class Instance:
    """A WikiContradict instance. ``conflict_type`` is ``explicit`` or ``implicit``.

    ``standalone``: the passages are the full JSON's stand-alone versions (the two statements
    in two separate passages even for a same-passage instance). ``consistent1`` /
    ``consistent2``: the release's modified consistent passages, '' when not given.
    """

    instance_id: str
    question: str
    passage1: str
    passage2: str
    answer1: str
    answer2: str
    conflict_type: str
    same_passage: bool
    standalone: bool = False
    same_passage_flag: bool | None = None
    consistent1: str = ""
    consistent2: str = ""

    @property
    def shares_passage(self) -> bool:
        """Both statements sit in the one passage shown (same-passage, no stand-alone versions)."""
        return self.same_passage and not self.standalone


def same_text(passage1: str, passage2: str) -> bool:
    """Whether two passages are one passage: equal after whitespace normalisation (runs of
    whitespace as one space, ends stripped)."""
    return " ".join(passage1.split()) == " ".join(passage2.split())


def flag_disagreements(instances: Iterable[Instance]) -> list[dict]:
    """Per conflict type (``explicit``, ``implicit``, ``all``): ``n_flag_same_text_differs``
    (flagged Same, two different passages) and ``n_flag_different_text_same`` (flagged
    Different, one passage); instances without a flag are not counted."""
    instances = [i for i in instances if i.same_passage_flag is not None]
    out = []
    for ctype in ("explicit", "implicit", "all"):
        sub = [i for i in instances if ctype == "all" or i.conflict_type == ctype]
        out.append({"conflict_type": ctype,
                    "n_flag_same_text_differs": sum(i.same_passage_flag and not i.same_passage for i in sub),
                    "n_flag_different_text_same": sum(i.same_passage and not i.same_passage_flag for i in sub)})
    return out


def template_ids() -> list[str]:
    """All template ids in canonical order."""
    return list(TEMPLATES)


def consistent_context_kind(instance: Instance) -> str:
    """``modified_passages`` when the instance carries the release's consistent passages, else
    ``passage1_twice``."""
    return "modified_passages" if instance.consistent1 and instance.consistent2 else "passage1_twice"


def context_passages(instance: Instance, template: Template) -> list[str]:
    """The passages placed in the context, in order.

    Same-passage instances get their passage once for every two-passage template
    (the release's ``merged_context`` rule); the consistent context is the modified passages
    or passage 1 twice (:func:`consistent_context_kind`).
    """
    if template.context == ("consistent",):
        if consistent_context_kind(instance) == "modified_passages":
            return [instance.consistent1, instance.consistent2]
        return [instance.passage1, instance.passage1]
    passages = {"p1": instance.passage1, "p2": instance.passage2}
    if template.two_passage and instance.shares_passage:
        return [instance.passage1]
    return [passages[name] for name in template.context]


def gold_answers(instance: Instance, template: Template) -> list[str]:
    """The gold answers the judge checks for this template (order as in ``template.gold``)."""
    answers = {"a1": instance.answer1, "a2": instance.answer2}
    return [answers[name] for name in template.gold]


def exclusion_reason(instance: Instance, template: Template) -> str:
    """Why ``template`` is not run on ``instance`` ('' when it is): a template showing one
    passage per statement (2, 3), or the passage-1-twice control, on an instance whose two
    statements share one passage."""
    if not instance.shares_passage:
        return ""
    if template.one_statement_per_passage:
        return "same_passage"
    if template.context == ("consistent",) and consistent_context_kind(instance) == "passage1_twice":
        return "same_passage"
    return ""


def applies(instance: Instance, template: Template) -> bool:
    """Whether ``template`` is run on ``instance`` (see :func:`exclusion_reason`)."""
    return not exclusion_reason(instance, template)


def render_prompt(instance: Instance, template: Template) -> str:
    """The user prompt in the paper's order: instruction, ``Question: ...``, ``Context: ...``
    (passages joined by a newline; none for template 1), then the template's answer format
    (detection templates). No trailing ``Answer:`` cue.
    """
    if not applies(instance, template):
        raise ValueError(
            f"template {template.template_id} does not apply to instance {instance.instance_id} "
            f"(its two conflicting statements share one passage)"
        )
    parts = [template.instruction, f"Question: {instance.question}"]
    passages = context_passages(instance, template)
    if passages:
        parts.append("Context: " + "\n".join(passages))
    if template.format_spec:
        parts.append(template.format_spec)
    return "\n".join(parts)


def render_requests(instances: Iterable[Instance], templates: Sequence[str]) -> tuple[list[dict], dict[str, int]]:
    """Rows ``(instance_id, template, template_set_version, conflict_type, prompt, gold_answers)``.

    Row order: instances in the given order, templates in the given order. Returns the rows
    and, per template, the number of instances excluded because the template does not apply.
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


def excluded_counts(instances: Iterable[Instance], templates: Sequence[str]) -> list[dict]:
    """Per template and conflict type (``explicit``, ``implicit``, ``all``): ``n_excluded``, the
    instances the template is not run on (same-passage exclusions), in template order."""
    instances = list(instances)
    out = []
    for tid in templates:
        template = TEMPLATES[tid]
        for ctype in ("explicit", "implicit", "all"):
            n = sum(1 for i in instances
                    if (ctype == "all" or i.conflict_type == ctype) and not applies(i, template))
            out.append({"template": tid, "conflict_type": ctype, "n_excluded": n})
    return out


def consistent_context_kinds(instances: Iterable[Instance], template: str = "5.2-control") -> dict[str, int]:
    """How many instances ``template`` (a consistent-context template) runs on, per
    :func:`consistent_context_kind`."""
    counts = {k: 0 for k in CONSISTENT_KINDS}
    for inst in instances:
        if applies(inst, TEMPLATES[template]):
            counts[consistent_context_kind(inst)] += 1
    return counts


def parse_conflict_detection(response: str) -> str:
    """Templates 5.2 / 5.2-control: ``yes`` / ``no`` from the response, or ``unparseable``.

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


def instances_from_records(records: Iterable[dict], passage_version: str) -> list[Instance]:
    """Instances from rows of the ingest table ``tables.conflict_inputs.WIKICONTRADICT_INSTANCES``.

    Uses ``question_id``, ``question``, ``answer1``, ``answer2``, ``contradict_type``
    (``explicit`` / ``implicit``), ``same_passage`` and the passages: ``context1`` /
    ``context2`` of the RAG-QA CSV (``passage_version="rag_qa"``) or the stand-alone versions
    ``passage1_standalone`` / ``passage2_standalone`` of the full JSON release
    (``"standalone"``; an instance without them raises ``ValueError`` naming it; the
    instance is then marked ``standalone``), and the modified consistent passages
    ``passage1_consistent`` / ``passage2_consistent`` when present (else ''). Order is
    kept. ``same_passage`` is decided from the text of ``context1`` / ``context2``
    (:func:`same_text`); the release's flag becomes ``same_passage_flag``. An unknown ``contradict_type`` raises ``ValueError`` naming the question id.
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
            conflict_type=ctype, same_passage=same_text(rec.get("context1") or "", rec.get("context2") or ""),
            same_passage_flag=None if rec.get("same_passage") is None else bool(rec["same_passage"]),
            standalone=passage_version == "standalone",
            consistent1=rec.get("passage1_consistent") or "", consistent2=rec.get("passage2_consistent") or "",
        ))
    return out
