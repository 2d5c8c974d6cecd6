"""Rule functions of the WikiContradict stage (one per rule of ``workflow/rules/wikicontradict.smk``).

  wikicontradict_requests     WIKICONTRADICT_INSTANCES -> WC_REQUESTS of one model
  wikicontradict_generate     WC_REQUESTS -> WC_RESPONSES (cached generation backend)
  wikicontradict_judge        WC_RESPONSES -> WC_JUDGEMENTS (the few-shot LLM judge)
  wikicontradict_judge_human  human-label JSONL -> WC_HUMAN_JUDGED (the judge on those responses)
  wikicontradict_metrics      WC_JUDGEMENTS (+ WC_HUMAN_JUDGED) -> rates, detection, agreement TSVs

Each takes paths and plain values (keyword-only). A model is given by its name, its
``models:`` entry (``model_cfg``), the generation backend settings (``backend``,
``backend_options``, ``batch_size``), its response-cache directory and, for locally built
models, ``model_dir``. Output paths end in ``_out`` (``out`` for a rule's only output).
"""
from __future__ import annotations

import logging
from collections import Counter
from typing import Mapping, Sequence

import pandas as pd

from ..generation.chat_rows import generate_for_rows, progress_logger
from ..tables.report_tsv import write_report_tsv
from ..tables import read_frame, read_table, write_table
from ..tables.conflict import WC_HUMAN_JUDGED, WC_JUDGEMENTS, WC_REQUESTS, WC_RESPONSES
from ..tables.conflict_inputs import WIKICONTRADICT_INSTANCES
from . import metrics as wm
from . import prompts as wc
from .run import (REQUEST_ITEM, human_items, human_judged_rows, judge_generations, judged_rows,
                  wikicontradict_request_rows, wikicontradict_response_rows)

log = logging.getLogger(__name__)

def wikicontradict_requests(*, instances, model: str, templates: Sequence[str], max_new_tokens: int, seed: int,
                            passage_version: str, out) -> None:
    """Instances table -> WC_REQUESTS of one model (instances in table order, templates in config
    order); logs per template the instances it does not apply to."""
    rows_in = read_table(instances, WIKICONTRADICT_INSTANCES).to_pylist()
    rows, skipped = wikicontradict_request_rows(rows_in, model, list(templates), max_new_tokens, seed,
                                                passage_version)
    write_table(WC_REQUESTS.from_rows(rows), out, WC_REQUESTS)
    log.info("model %s templates %s; instances skipped per template (template does not apply): %s",
             model, list(templates), skipped)


def wikicontradict_generate(*, requests, model_dir=None, model: str, model_cfg: Mapping, backend: str,
                            backend_options: Mapping, batch_size: int, cache_dir: str, out) -> None:
    """WC_REQUESTS -> WC_RESPONSES (verbatim responses) via the cached backend."""
    rows = read_table(requests, WC_REQUESTS).to_pylist()
    gens = generate_for_rows(rows, model, model_cfg, backend, backend_options, cache_dir, local_dir=model_dir,
                             batch_size=batch_size, tag=f"wikicontradict-{model}",
                             progress=progress_logger(len(rows), f"wikicontradict {model}"),
                             item_keys=REQUEST_ITEM, output_key="wikicontradict.max_new_tokens")
    write_table(WC_RESPONSES.from_rows(wikicontradict_response_rows(rows, gens)), out, WC_RESPONSES)
    log.info("model %s: %d responses", model, len(rows))


def wikicontradict_judge(*, responses, instances, fewshot, model_dir=None, judge_model: str, judge_cfg: Mapping,
                         backend: str, backend_options: Mapping, batch_size: int, cache_dir: str,
                         max_new_tokens: int, seed: int, out) -> None:
    """WC_RESPONSES of one model -> WC_JUDGEMENTS (judge label per response; 5.2 detection parsed)."""
    response_rows = read_table(responses, WC_RESPONSES).to_pylist()
    instance_rows = read_table(instances, WIKICONTRADICT_INSTANCES).to_pylist()
    requests, gens = judge_generations(
        response_rows, instance_rows, fewshot, judge_model=judge_model, judge_cfg=judge_cfg, backend=backend,
        backend_options=backend_options, batch_size=batch_size, cache_dir=cache_dir, max_new_tokens=max_new_tokens,
        seed=seed, local_dir=model_dir, progress=progress_logger(len(response_rows), f"judge {judge_model}"))
    rows = judged_rows(response_rows, requests, gens, judge_model)
    write_table(WC_JUDGEMENTS.from_rows(rows), out, WC_JUDGEMENTS)
    log.info("judge %s labels: %s", judge_model, dict(sorted(Counter(r["judge_label"] for r in rows).items())))


def wikicontradict_judge_human(*, human, instances, fewshot, model_dir=None, judge_model: str, judge_cfg: Mapping,
                               backend: str, backend_options: Mapping, batch_size: int, cache_dir: str,
                               max_new_tokens: int, seed: int, out) -> None:
    """Human-label file -> WC_HUMAN_JUDGED: the judge on the human-labelled responses."""
    instance_rows = read_table(instances, WIKICONTRADICT_INSTANCES).to_pylist()
    items = human_items(wm.load_human_labels(human).to_dict("records"), instance_rows, str(human))
    requests, gens = judge_generations(
        items, instance_rows, fewshot, judge_model=judge_model, judge_cfg=judge_cfg, backend=backend,
        backend_options=backend_options, batch_size=batch_size, cache_dir=cache_dir, max_new_tokens=max_new_tokens,
        seed=seed, local_dir=model_dir,
        progress=progress_logger(len(items), f"judge {judge_model} (human items)"))
    write_table(WC_HUMAN_JUDGED.from_rows(human_judged_rows(items, requests, gens, judge_model)), out,
                WC_HUMAN_JUDGED)
    log.info("judge %s on %d human-labelled responses", judge_model, len(items))


def wikicontradict_metrics(*, judgements: Sequence, instances, human_judged=None, templates: Sequence[str],
                           passage_version: str, rates_out, detection_out, agreement_out=None,
                           confusion_out=None) -> None:
    """Judged tables -> TSVs: rates per model x template (with the same-passage exclusions
    per template, from ``instances``, and the instances whose release ``samepassage`` flag
    disagrees with their text, ``n_flag_same_text_differs`` / ``n_flag_different_text_same``), 5.2 conflict detection beside the 5.2-control false
    detection and, with ``human_judged``, judge agreement (overall and per template; with the
    unparseable judge outputs kept and excluded) and its confusion table."""
    judged = pd.concat([read_frame(p, WC_JUDGEMENTS) for p in judgements], ignore_index=True)
    inst = wc.instances_from_records(read_table(instances, WIKICONTRADICT_INSTANCES).to_pylist(), passage_version)
    excluded = pd.DataFrame(wc.excluded_counts(inst, list(templates)))
    rates = wm.judged_rates(judged, template_order=list(templates), excluded=excluded)
    if not rates.empty:
        rates = rates.merge(pd.DataFrame(wc.flag_disagreements(inst)), on="conflict_type", how="left")
    write_report_tsv(rates, rates_out)
    kinds = wc.consistent_context_kinds(inst)
    consistent = "+".join(k for k in wc.CONSISTENT_KINDS if kinds[k]) or "none"
    write_report_tsv(wm.detection_with_control(judged, consistent), detection_out)
    log.info("same-passage exclusions per template: %s; consistent contexts: %s",
             {r["template"]: r["n_excluded"] for r in wc.excluded_counts(inst, list(templates))
              if r["conflict_type"] == "all"}, kinds)
    if human_judged:
        agreement, confusion = wm.judge_agreement_tables(read_frame(human_judged, WC_HUMAN_JUDGED))
        write_report_tsv(agreement, agreement_out)
        write_report_tsv(confusion, confusion_out)
    log.info("wrote %s", [p for p in (rates_out, detection_out, agreement_out, confusion_out) if p])
