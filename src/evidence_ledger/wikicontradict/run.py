"""WikiContradict end to end: request rows, response rows, judge requests and judged rows.

In:  the ingest table WIKICONTRADICT_INSTANCES (as row dicts), template ids and decoding
     settings from config, generated texts (``generation.chat_rows.generate_for_rows``), the
     judge's few-shot examples and, for judge agreement, the human-label file.
Out: row dicts for the WC_* tables of ``tables.conflict`` (same column names).

Every function here is pure (no I/O, no model) except :func:`judge_generations`, the one
place both judge rules (``stage.wikicontradict_judge`` and ``wikicontradict_judge_human``)
render the judge prompts and generate through the cached backend. Row order is
deterministic: instances in table order, templates in config order.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ..errors import InputError
from ..generation.chat_rows import generate_for_rows, greedy_sampling, provenance_columns, request_columns
from . import judge as judge_mod
from . import prompts as wc


def wikicontradict_request_rows(instance_rows: Sequence[Mapping], model: str, templates: Sequence[str],
                                max_new_tokens: int, seed: int,
                                passage_version: str) -> tuple[list[dict], dict[str, int]]:
    """WC_REQUESTS rows for one model, and per template the number of skipped instances."""
    instances = wc.instances_from_records(instance_rows, passage_version)
    prompts, skipped = wc.render_requests(instances, templates)
    sampling = greedy_sampling(max_new_tokens, seed)
    rows = []
    for p in prompts:
        rows.append({"model": model, "instance_id": p["instance_id"], "template": p["template"],
                     "template_set_version": p["template_set_version"], "conflict_type": p["conflict_type"],
                     "gold_answers": list(p["gold_answers"]), **request_columns(p["prompt"], sampling)})
    return rows, skipped


_KEYS = ("model", "instance_id", "template", "template_set_version", "conflict_type", "gold_answers")
#: the columns that name one request in a message (a prompt too long for the model's context)
REQUEST_ITEM = ("instance_id", "template")


def wikicontradict_response_rows(request_rows: Sequence[Mapping], generations: Sequence) -> list[dict]:
    """WC_RESPONSES rows: request keys + verbatim response + provenance (same order)."""
    if len(request_rows) != len(generations):
        raise ValueError(f"{len(request_rows)} requests but {len(generations)} generations")
    return [{**{k: r[k] for k in _KEYS}, "request_id": r["request_id"], "raw_response": g.text,
             **provenance_columns(g)} for r, g in zip(request_rows, generations)]


def question_lookup(instance_rows: Sequence[Mapping]) -> dict[str, str]:
    return {str(r["question_id"]): r["question"] for r in instance_rows}


def judge_request_rows(items: Sequence[Mapping], questions: Mapping[str, str],
                       examples: Sequence[judge_mod.FewShotExample], max_new_tokens: int, seed: int) -> list[dict]:
    """One judge request per item (``instance_id``, ``gold_answers``, ``raw_response``).

    Returns rows with the item's ``instance_id`` and ``template`` (naming it in messages),
    ``messages``, sampling columns and ``request_id`` (greedy).
    """
    sampling = greedy_sampling(max_new_tokens, seed)
    out = []
    for item in items:
        prompt = judge_mod.render_judge_prompt(questions[item["instance_id"]], list(item["gold_answers"]),
                                               item["raw_response"], examples)
        out.append({"instance_id": item["instance_id"], "template": item["template"],
                    **request_columns(prompt, sampling)})
    return out


def judged_rows(response_rows: Sequence[Mapping], judge_requests: Sequence[Mapping], judge_generations: Sequence,
                judge_model: str) -> list[dict]:
    """WC_JUDGEMENTS rows: response + parsed detection (5.2 / 5.2-control) + the judge's raw
    output and label."""
    out = []
    for resp, req, gen in zip(response_rows, judge_requests, judge_generations, strict=True):
        parsed = judge_mod.parse_judgement(gen.text)
        detection = (wc.parse_conflict_detection(resp["raw_response"])
                     if resp["template"] in wc.DETECTION_TEMPLATES else "")
        out.append({**{k: resp[k] for k in _KEYS}, "raw_response": resp["raw_response"], "detection": detection,
                    "judge_model": judge_model, "judge_prompt_version": judge_mod.JUDGE_PROMPT_VERSION,
                    "judge_request_id": req["request_id"], "judge_raw": gen.text, "judge_label": parsed.label,
                    "judge_reason": parsed.reason})
    return out


#: the passages human-labelled items are matched against: only instance ids, gold answers, conflict
#: types and template applicability are read, none of which depends on the passage version
HUMAN_LABEL_PASSAGE_VERSION = "rag_qa"


def human_items(human_rows: Sequence[Mapping], instance_rows: Sequence[Mapping], path: str) -> list[dict]:
    """Human-labelled responses with their gold answers and conflict type from the instances.

    Raises ``InputError`` (human-label file, item's position, field) when the item's
    instance or template is unknown, or the template does not apply to the instance.
    """
    instances = {i.instance_id: i for i in wc.instances_from_records(instance_rows, HUMAN_LABEL_PASSAGE_VERSION)}
    out = []
    for n, h in enumerate(human_rows, start=1):
        inst = instances.get(str(h["instance_id"]))
        if inst is None:
            raise InputError(path, n, "instance_id", f"{h['instance_id']!r} is not a WikiContradict instance")
        template = wc.TEMPLATES.get(h["template"])
        if template is None:
            raise InputError(path, n, "template", f"{h['template']!r} is not one of {wc.template_ids()}")
        if not wc.applies(inst, template):
            raise InputError(path, n, "template", f"template {h['template']} does not apply to instance "
                                                  f"{inst.instance_id}")
        out.append({**h, "instance_id": inst.instance_id, "conflict_type": inst.conflict_type,
                    "gold_answers": wc.gold_answers(inst, template), "raw_response": h["response"]})
    return out


def human_judged_rows(items: Sequence[Mapping], judge_requests: Sequence[Mapping], judge_generations: Sequence,
                      judge_model: str) -> list[dict]:
    """WC_HUMAN_JUDGED rows (same order as ``items``)."""
    out = []
    for item, req, gen in zip(items, judge_requests, judge_generations, strict=True):
        parsed = judge_mod.parse_judgement(gen.text)
        out.append({"item_id": item["item_id"], "instance_id": item["instance_id"], "template": item["template"],
                    "model": item["model"], "conflict_type": item["conflict_type"],
                    "human_label": item["human_label"], "judge_model": judge_model,
                    "judge_request_id": req["request_id"], "judge_raw": gen.text, "judge_label": parsed.label,
                    "judge_reason": parsed.reason})
    return out


def judge_generations(items: Sequence[Mapping], instance_rows: Sequence[Mapping], fewshot_path, *, judge_model: str,
                      judge_cfg: Mapping, backend: str, backend_options: Mapping, batch_size: int, cache_dir: str,
                      max_new_tokens: int, seed: int, local_dir: str | None = None,
                      progress: Callable[[int], None] | None = None) -> tuple[list[dict], list]:
    """Judge requests for ``items`` (``instance_id``, ``gold_answers``, ``raw_response``) and the
    judge's generations, in item order: few-shot examples from ``fewshot_path``, questions from
    the instances, greedy decoding, the shared response cache (tag ``wikicontradict-judge-<model>``)."""
    examples = judge_mod.load_fewshot_examples(fewshot_path)
    requests = judge_request_rows(items, question_lookup(instance_rows), examples, max_new_tokens, seed)
    gens = generate_for_rows(requests, judge_model, judge_cfg, backend, backend_options, cache_dir,
                             local_dir=local_dir, batch_size=batch_size, tag=f"wikicontradict-judge-{judge_model}",
                             progress=progress, item_keys=REQUEST_ITEM,
                             output_key="wikicontradict.judge.max_new_tokens")
    return requests, gens
