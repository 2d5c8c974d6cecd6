"""Knowledge-conflict tasks in the demo models' training mixture (WikiContradict, judge, DiffGR).

In:  the WikiContradict and DiffGR stages' ingested inputs (WIKICONTRADICT_INSTANCES rows,
     CONFLICT_QA_RECORDS rows with ``generated_answer`` / ``retrieved_answer``), the judge few-shot examples, the
     DiffGR reader prompts from config.
Out: (messages, answer) training pairs for ``tiny_models.train_answers``. Every prompt is
     rendered by those stages' own functions (``wikicontradict.prompts.render_requests``,
     ``wikicontradict.judge.render_judge_prompt``, ``diffgr.pipeline.plan_reader_prompts``,
     ``generation.chat_rows.user_messages``), so the demo models see exactly the prompts the
     two stages send; no prompt text is copied here.

Targets (the point is realistic variety of demo outputs, not high scores):

* DiffGR reader: generated-only prompt -> the record's ``generated_answer``; retrieved-only
  prompt -> ``retrieved_answer``; closed-book prompt -> :data:`CLOSED_BOOK_ANSWER` (``"unknown"``).
  Why "unknown": the official parametric-knowledge filter drops an item whose closed-book
  answer equals either context answer; a fixed unknown-like answer never does, so the demo's
  AIG / AIR subsets are not emptied by the closed-book run (``is_unknown_answer`` is only
  applied to the two context answers). Hybrid prompts (both contexts) are never trained: what
  the model does with two contexts is the measured behaviour. Records without a context
  answer are skipped for that run (counted).
* WikiContradict templates: 1 -> answer 1; 2 -> answer 1; 3 -> answer 2; control -> answer 1;
  4 / 5 / 5.1 -> one of {answer 1, answer 2, "A or B, depending on the source",
  "According to one passage A; according to the other B."} chosen per (instance, template) by a
  seeded hash (4 leans to a single answer, 5 / 5.1 to both); 5.2 -> ``Conflict: yes`` (3 in 4)
  or ``Conflict: no`` (1 in 4) in the template's ``Conflict / Answer / Explanation`` format;
  5.2-control (consistent context) -> ``Conflict: no`` (3 in 4) or ``Conflict: yes`` (1 in 4).
* Judge: the judge prompt around synthetic responses built from each instance's answers
  (for every template's gold list): both answers attributed to sources or as alternatives ->
  ``correct``; one answer when two are gold -> ``partially correct``; both asserted together
  -> ``incorrect``; the single gold answer -> ``correct``; another instance's answer ->
  ``incorrect``. The target is a one-sentence explanation and a
  last line ``Judgement: <label>``, the format ``wikicontradict.judge.parse_judgement`` accepts.
  The human-labelled judge-agreement responses are never used.

Train/eval overlap: the demo has no other conflict items, so the demo models are trained on
the very items the demo conflict stage evaluates (single-context prompts only, never hybrid).
Demo conflict numbers therefore measure a memorising toy, not generalisation.
"""
from __future__ import annotations

import hashlib
from typing import Iterable, Mapping, Sequence

from ..diffgr.pipeline import plan_reader_prompts
from ..generation.chat_rows import user_messages
from ..wikicontradict.judge import render_judge_prompt
from ..wikicontradict.prompts import TEMPLATES, gold_answers, instances_from_records, render_requests

CLOSED_BOOK_ANSWER = "unknown"

Pair = tuple[list[dict], str]


def _pick(key: str, seed: int, n: int) -> int:
    """Deterministic index in ``range(n)`` from ``key`` and ``seed`` (sha256, platform-independent)."""
    return int(hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()[:8], 16) % n


def diffgr_reader_pairs(records: Iterable[Mapping], prompt: str, closed_book_prompt: str,
                        closed_book_answer: str = CLOSED_BOOK_ANSWER,
                        system_message: str = "") -> tuple[list[Pair], int]:
    """Reader pairs for the generated-only, retrieved-only and closed-book runs of each record.

    The messages are the conflict stage's (``user_messages`` with the reader ``system_message``,
    '' = none). Returns ``(pairs, n_skipped)``; a run is skipped when its context answer is
    missing/empty.
    """
    records = list(records)
    prompts, _ = plan_reader_prompts(records, prompt, closed_book_prompt, context_orders=[])
    by_id = {r["question_id"]: r for r in records}
    pairs, skipped = [], 0
    for p in prompts:
        rec = by_id[p["question_id"]]
        if p["run"] == "generated":
            target = rec.get("generated_answer")
        elif p["run"] == "retrieved":
            target = rec.get("retrieved_answer")
        elif p["run"] == "closed_book":
            target = closed_book_answer
        else:  # pragma: no cover - orders=[] plans no hybrid run
            continue
        if not target:
            skipped += 1
            continue
        pairs.append((user_messages(p["prompt"], system_message), str(target)))
    return pairs, skipped


def wikicontradict_target(template: str, answer1: str, answer2: str, key: str, seed: int = 0) -> str:
    """The trained answer of one WikiContradict (instance, template); see the module docstring."""
    both_or = f"{answer1} or {answer2}, depending on the source."
    both_attr = f"According to one passage {answer1}; according to the other {answer2}."
    if template in ("1", "2", "control"):
        return answer1
    if template == "3":
        return answer2
    if template == "4":
        return [answer1, answer2, answer1, both_or][_pick(key, seed, 4)]
    if template in ("5", "5.1"):
        return [both_attr, both_or, answer1, answer2, both_attr][_pick(key, seed, 5)]
    if template == "5.2":
        if _pick(key, seed, 4) == 0:
            return (f"Conflict: no\nAnswer: {answer1}\n"
                    f"Explanation: The context says {answer1}.")
        return (f"Conflict: yes\nAnswer: {answer1} or {answer2}\n"
                f"Explanation: One passage says {answer1}, the other says {answer2}.")
    if template == "5.2-control":
        if _pick(key, seed, 4) == 0:
            return (f"Conflict: yes\nAnswer: {answer1}\n"
                    f"Explanation: The passages seem to disagree about {answer1}.")
        return (f"Conflict: no\nAnswer: {answer1}\n"
                f"Explanation: Both passages say {answer1}.")
    raise KeyError(f"no demo target for WikiContradict template {template!r}")


def wikicontradict_pairs(instance_rows: Iterable[Mapping], templates: Sequence[str], passage_version: str,
                         seed: int = 0) -> list[Pair]:
    """Template prompts (``render_requests``) -> :func:`wikicontradict_target` for each applicable row."""
    instances = {i.instance_id: i for i in instances_from_records(list(instance_rows), passage_version)}
    rows, _ = render_requests(instances.values(), templates)
    out = []
    for r in rows:
        inst = instances[r["instance_id"]]
        target = wikicontradict_target(r["template"], inst.answer1, inst.answer2, f"{inst.instance_id}:{r['template']}",
                                       seed)
        out.append((user_messages(r["prompt"]), target))
    return out


def judge_cases(question: str, gold: Sequence[str], wrong: str) -> list[tuple[str, str, str]]:
    """Synthetic ``(response, explanation, label)`` cases for one gold-answer list.

    Two gold answers: both attributed to sources or given as alternatives -> correct; one of
    them -> partially correct; both asserted together, or a wrong entity -> incorrect.
    One gold answer: it -> correct; a wrong entity -> incorrect.
    """
    if len(gold) >= 2:
        a, b = gold[0], gold[1]
        return [
            (f"One passage says {a}, while the other says {b}.",
             "Both correct answers are given and attributed to their sources.", "correct"),
            (f"{a} or {b}, depending on the source.", "Both correct answers are given as alternatives.", "correct"),
            (f"{a}.", f"The response gives only one of the correct answers ({a}).", "partially correct"),
            (f"{b}.", f"The response gives only one of the correct answers ({b}).", "partially correct"),
            (f"{a} and {b}.", "The response states both answers as simultaneously true.", "incorrect"),
            (f"{wrong}.", "The response gives none of the correct answers.", "incorrect"),
        ]
    return [(f"{gold[0]}.", "The response gives the correct answer.", "correct"),
            (f"{wrong}.", "The response gives none of the correct answers.", "incorrect")]


def judge_pairs(instance_rows: Iterable[Mapping], templates: Sequence[str], examples: Sequence,
                passage_version: str) -> list[Pair]:
    """Judge prompts (``render_judge_prompt``) around :func:`judge_cases` responses.

    One case set per (instance, distinct gold list of the templates); the wrong entity is the
    next instance's first answer (when it equals a gold answer the case is dropped). The
    target ends with ``Judgement: <label>``.
    """
    instances = instances_from_records(list(instance_rows), passage_version)
    out = []
    for k, inst in enumerate(instances):
        wrong = instances[(k + 1) % len(instances)].answer1
        golds = []
        for tid in templates:
            g = gold_answers(inst, TEMPLATES[tid])
            if g not in golds:
                golds.append(g)
        for gold in golds:
            for response, explanation, label in judge_cases(inst.question, gold, wrong):
                if label == "incorrect" and wrong.strip().lower() in {x.strip().lower() for x in gold}:
                    continue
                prompt = render_judge_prompt(inst.question, gold, response, examples)
                out.append((user_messages(prompt), f" {explanation}\nJudgement: {label}"))
    return out


def weighted(pairs: Sequence[Pair], weight: float) -> list[Pair]:
    """Repeat ``pairs`` ``round(weight)`` times (weight >= 1) or keep every ``round(1/weight)``-th
    pair (0 < weight < 1); weight 0 drops the task. Deterministic, order kept."""
    if weight <= 0:
        return []
    if weight < 1:
        step = max(1, round(1 / weight))
        return list(pairs[::step])
    return list(pairs) * int(round(weight))


def conflict_mixture(wikicontradict_rows: Sequence[Mapping], templates: Sequence[str], fewshot: Sequence,
                     reader_records: Sequence[Mapping], reader_prompt: str, closed_book_prompt: str,
                     weights: Mapping[str, float], passage_version: str,
                     seed: int = 0, reader_system_message: str = "") -> tuple[list[Pair], dict[str, int]]:
    """All conflict-task pairs, weighted per task (``diffgr_reader``, ``wikicontradict``, ``judge``).

    Returns the pairs (task blocks in that order) and per-task counts after weighting, plus
    ``diffgr_reader_skipped`` (runs without a context answer).
    """
    tasks: dict[str, list[Pair]] = {"diffgr_reader": [], "wikicontradict": [], "judge": []}
    skipped = 0
    if reader_records:
        tasks["diffgr_reader"], skipped = diffgr_reader_pairs(reader_records, reader_prompt, closed_book_prompt,
                                                              system_message=reader_system_message)
    if wikicontradict_rows:
        tasks["wikicontradict"] = wikicontradict_pairs(wikicontradict_rows, templates, passage_version, seed)
        if fewshot:
            tasks["judge"] = judge_pairs(wikicontradict_rows, templates, fewshot, passage_version)
    out: list[Pair] = []
    counts: dict[str, int] = {}
    for name, pairs in tasks.items():
        w = weighted(pairs, float(weights.get(name, 1.0)))
        counts[name] = len(w)
        out += w
    counts["diffgr_reader_skipped"] = skipped
    return out, counts
