"""WikiContradict end to end: request rows, response rows, judge requests and judged rows.

In:  the ingest table WIKICONTRADICT_INSTANCES (as row dicts), template ids and decoding
     settings from config, generated texts (``conflict.requests.generate_for_rows``), the
     judge's few-shot examples and, for judge agreement, the human-label file.
Out: row dicts for the WC_* tables of ``tables.conflict`` (same column names).

Every function here is pure (no I/O, no model); the rule scripts do reading, generation and
writing. Row order is deterministic: instances in table order, templates in config order.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ..errors import InputError
from . import judge as judge_mod
from . import wikicontradict as wc
from .requests import greedy_sampling, provenance_columns, request_columns


def wikicontradict_request_rows(instance_rows: Sequence[Mapping], model: str, templates: Sequence[str],
                                max_new_tokens: int, seed: int,
                                passage_version: str = "rag_qa") -> tuple[list[dict], dict[str, int]]:
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

    Returns rows with ``messages``, sampling columns and ``request_id`` (greedy).
    """
    sampling = greedy_sampling(max_new_tokens, seed)
    out = []
    for item in items:
        prompt = judge_mod.render_judge_prompt(questions[item["instance_id"]], list(item["gold_answers"]),
                                               item["raw_response"], examples)
        out.append(request_columns(prompt, sampling))
    return out


def judged_rows(response_rows: Sequence[Mapping], judge_requests: Sequence[Mapping], judge_generations: Sequence,
                judge_model: str) -> list[dict]:
    """WC_JUDGEMENTS rows: response + parsed 5.2 detection + the judge's raw output and label."""
    out = []
    for resp, req, gen in zip(response_rows, judge_requests, judge_generations, strict=True):
        parsed = judge_mod.parse_judgement(gen.text)
        detection = wc.parse_conflict_detection(resp["raw_response"]) if resp["template"] == "5.2" else ""
        out.append({**{k: resp[k] for k in _KEYS}, "raw_response": resp["raw_response"], "detection": detection,
                    "judge_model": judge_model, "judge_prompt_version": judge_mod.JUDGE_PROMPT_VERSION,
                    "judge_request_id": req["request_id"], "judge_raw": gen.text, "judge_label": parsed.label,
                    "judge_reason": parsed.reason})
    return out


def human_items(human_rows: Sequence[Mapping], instance_rows: Sequence[Mapping], path: str) -> list[dict]:
    """Human-labelled responses with their gold answers and conflict type from the instances.

    Raises ``InputError`` (human-label file, item's position, field) when the item's
    instance or template is unknown, or the template does not apply to the instance.
    """
    instances = {i.instance_id: i for i in wc.instances_from_records(instance_rows)}
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


# ----------------------------------------------------------------------------- rule entry points
def _progress_logger(total: int, what: str):
    import logging

    from tqdm import tqdm

    bar = tqdm(total=total, desc=what, mininterval=5.0)
    log = logging.getLogger(__name__)

    def update(n: int) -> None:
        bar.update(n)
        log.info("%s: %d / %d generated", what, bar.n, total)

    return update


def run_wikicontradict_requests(instances_path, out_path, model: str, templates: Sequence[str],
                                max_new_tokens: int, seed: int, passage_version: str = "rag_qa") -> dict[str, int]:
    """Rule wikicontradict_requests: instances table -> WC_REQUESTS. Returns skipped counts."""
    from ..tables import read_table, write_table
    from ..tables.conflict import WC_REQUESTS
    from ..tables.conflict_inputs import WIKICONTRADICT_INSTANCES

    instances = read_table(instances_path, WIKICONTRADICT_INSTANCES).to_pylist()
    rows, skipped = wikicontradict_request_rows(instances, model, templates, max_new_tokens, seed, passage_version)
    write_table(WC_REQUESTS.from_rows(rows), out_path, WC_REQUESTS)
    return skipped


def run_wikicontradict_generate(requests_path, out_path, model: str, model_cfg: Mapping, backend: str,
                                backend_options: Mapping, cache_dir: str, batch_size: int,
                                local_dir: str | None = None) -> int:
    """Rule wikicontradict_generate: WC_REQUESTS -> WC_RESPONSES via the cached backend."""
    from ..tables import read_table, write_table
    from ..tables.conflict import WC_REQUESTS, WC_RESPONSES
    from .requests import generate_for_rows

    rows = read_table(requests_path, WC_REQUESTS).to_pylist()
    gens = generate_for_rows(rows, model, model_cfg, backend, backend_options, cache_dir, local_dir=local_dir,
                             batch_size=batch_size, tag=f"wikicontradict-{model}",
                             progress=_progress_logger(len(rows), f"wikicontradict {model}"))
    write_table(WC_RESPONSES.from_rows(wikicontradict_response_rows(rows, gens)), out_path, WC_RESPONSES)
    return len(rows)


def run_wikicontradict_judge(responses_path, instances_path, fewshot_path, out_path, judge_model: str,
                             judge_cfg: Mapping, backend: str, backend_options: Mapping, cache_dir: str,
                             batch_size: int, max_new_tokens: int, seed: int,
                             local_dir: str | None = None) -> dict[str, int]:
    """Rule wikicontradict_judge: WC_RESPONSES -> WC_JUDGEMENTS. Returns label counts."""
    from collections import Counter

    from ..tables import read_table, write_table
    from ..tables.conflict import WC_JUDGEMENTS, WC_RESPONSES
    from ..tables.conflict_inputs import WIKICONTRADICT_INSTANCES
    from .requests import generate_for_rows

    responses = read_table(responses_path, WC_RESPONSES).to_pylist()
    questions = question_lookup(read_table(instances_path, WIKICONTRADICT_INSTANCES).to_pylist())
    examples = judge_mod.load_fewshot_examples(fewshot_path)
    requests = judge_request_rows(responses, questions, examples, max_new_tokens, seed)
    gens = generate_for_rows(requests, judge_model, judge_cfg, backend, backend_options, cache_dir,
                             local_dir=local_dir, batch_size=batch_size, tag=f"wikicontradict-judge-{judge_model}",
                             progress=_progress_logger(len(requests), f"judge {judge_model}"))
    rows = judged_rows(responses, requests, gens, judge_model)
    write_table(WC_JUDGEMENTS.from_rows(rows), out_path, WC_JUDGEMENTS)
    return dict(sorted(Counter(r["judge_label"] for r in rows).items()))


def run_wikicontradict_judge_human(human_path, instances_path, fewshot_path, out_path, judge_model: str,
                                   judge_cfg: Mapping, backend: str, backend_options: Mapping, cache_dir: str,
                                   batch_size: int, max_new_tokens: int, seed: int,
                                   local_dir: str | None = None) -> int:
    """Rule wikicontradict_judge_human: human-label file -> WC_HUMAN_JUDGED (judge on those responses)."""
    from ..tables import read_table, write_table
    from ..tables.conflict import WC_HUMAN_JUDGED
    from ..tables.conflict_inputs import WIKICONTRADICT_INSTANCES
    from .requests import generate_for_rows
    from .wikicontradict_metrics import load_human_labels

    instance_rows = read_table(instances_path, WIKICONTRADICT_INSTANCES).to_pylist()
    human = load_human_labels(human_path).to_dict("records")
    items = human_items(human, instance_rows, str(human_path))
    examples = judge_mod.load_fewshot_examples(fewshot_path)
    requests = judge_request_rows(items, question_lookup(instance_rows), examples, max_new_tokens, seed)
    gens = generate_for_rows(requests, judge_model, judge_cfg, backend, backend_options, cache_dir,
                             local_dir=local_dir, batch_size=batch_size, tag=f"wikicontradict-judge-{judge_model}",
                             progress=_progress_logger(len(requests), f"judge {judge_model} (human items)"))
    write_table(WC_HUMAN_JUDGED.from_rows(human_judged_rows(items, requests, gens, judge_model)), out_path,
                WC_HUMAN_JUDGED)
    return len(items)


_TSV = {"sep": "\t", "index": False, "float_format": "%.6f", "lineterminator": "\n", "na_rep": "NaN"}


def run_wikicontradict_metrics(judgement_paths: Sequence, human_judged_path, templates: Sequence[str],
                               rates_path, detection_path, agreement_path=None, confusion_path=None) -> None:
    """Rule wikicontradict_metrics: judged tables -> TSVs (rates, 5.2 detection, judge agreement)."""
    import pandas as pd

    from ..tables import read_frame
    from ..tables.conflict import WC_HUMAN_JUDGED, WC_JUDGEMENTS
    from . import wikicontradict_metrics as wm

    judged = pd.concat([read_frame(p, WC_JUDGEMENTS) for p in judgement_paths], ignore_index=True)
    rates = wm.judged_rates(judged, template_order=list(templates))
    rates.to_csv(rates_path, **_TSV)
    det = judged[judged["template"] == "5.2"][["model", "conflict_type", "detection"]]
    detection = wm.conflict_detection_rates(det) if len(det) else pd.DataFrame(
        columns=["model", "conflict_type", "n", "n_yes", "n_no", "n_unparseable", "detection_rate"])
    detection.to_csv(detection_path, **_TSV)
    if human_judged_path is not None:
        human = read_frame(human_judged_path, WC_HUMAN_JUDGED)
        rows, confusions = [], []
        groups = [("all", "all", human)]
        groups += [(f"template={t}", "template", g) for t, g in human.groupby("template", sort=True)]
        for name, kind, grp in groups:
            summary, confusion = wm.judge_agreement(grp)
            rows.append({"judge_model": grp["judge_model"].iloc[0] if len(grp) else "", "subset": name, **summary})
            confusion.insert(0, "subset", name)
            confusions.append(confusion)
        pd.DataFrame(rows).to_csv(agreement_path, **_TSV)
        pd.concat(confusions, ignore_index=True).to_csv(confusion_path, **_TSV)
