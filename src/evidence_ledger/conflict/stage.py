"""Rule functions of the conflict stage (one per rule of ``workflow/rules/conflict.smk``).

  wikicontradict_requests     WIKICONTRADICT_INSTANCES -> WC_REQUESTS of one model
  wikicontradict_generate     WC_REQUESTS -> WC_RESPONSES (cached generation backend)
  wikicontradict_judge        WC_RESPONSES -> WC_JUDGEMENTS (the few-shot LLM judge)
  wikicontradict_judge_human  human-label JSONL -> WC_HUMAN_JUDGED (the judge on those responses)
  wikicontradict_metrics      WC_JUDGEMENTS (+ WC_HUMAN_JUDGED) -> rates, detection, agreement TSVs
  diffgr_generate             CONFLICT_QA_RECORDS -> DIFFGR_READER_ANSWERS + DIFFGR_LENGTHS
  diffgr_score                reader answers of every model x dataset -> DIFFGR_CC_ITEMS + TSVs
  diffgr_score_files          official reader-output files -> DiffGR TSV

Each takes paths and plain values (keyword-only). A model is given by its name, its
``models:`` entry (``model_cfg``), the generation backend settings (``backend``,
``backend_options``, ``batch_size``), its response-cache directory and, for locally built
models, ``model_dir``. Output paths end in ``_out`` (``out`` for a rule's only output).
"""
from __future__ import annotations

import logging
import warnings
from collections import Counter
from typing import Mapping, Sequence

import pandas as pd
from tqdm import tqdm

from ..report_tsv import write_report_tsv
from ..scoring.diffgr import read_merged_items
from ..tables import read_frame, read_table, write_table
from ..tables.conflict import (DIFFGR_CC_ITEMS, DIFFGR_LENGTHS, DIFFGR_READER_ANSWERS, WC_HUMAN_JUDGED,
                               WC_JUDGEMENTS, WC_REQUESTS, WC_RESPONSES)
from ..tables.conflict_inputs import CONFLICT_QA_RECORDS, WIKICONTRADICT_INSTANCES
from . import wikicontradict as wc
from . import wikicontradict_metrics as wm
from .diffgr_pipeline import (ORDERS, cc_item_rows, diffgr_summary_rows, length_summary, merged_items,
                              reader_answer_rows, reader_request_rows)
from .requests import generate_for_rows
from .wikicontradict_run import (human_items, human_judged_rows, judge_generations, judged_rows,
                                 wikicontradict_request_rows, wikicontradict_response_rows)

log = logging.getLogger(__name__)

def _progress_logger(total: int, what: str):
    """A tqdm bar (stderr) plus one log line per generated batch."""
    bar = tqdm(total=total, desc=what, mininterval=5.0)

    def update(n: int) -> None:
        bar.update(n)
        log.info("%s: %d / %d generated", what, bar.n, total)

    return update


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
                             progress=_progress_logger(len(rows), f"wikicontradict {model}"))
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
        seed=seed, local_dir=model_dir, progress=_progress_logger(len(response_rows), f"judge {judge_model}"))
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
        progress=_progress_logger(len(items), f"judge {judge_model} (human items)"))
    write_table(WC_HUMAN_JUDGED.from_rows(human_judged_rows(items, requests, gens, judge_model)), out,
                WC_HUMAN_JUDGED)
    log.info("judge %s on %d human-labelled responses", judge_model, len(items))


def wikicontradict_metrics(*, judgements: Sequence, instances, human_judged=None, templates: Sequence[str],
                           passage_version: str, rates_out, detection_out, agreement_out=None,
                           confusion_out=None) -> None:
    """Judged tables -> TSVs: rates per model x template (with the same-passage exclusions
    per template, from ``instances``), 5.2 conflict detection beside the 5.2-control false
    detection and, with ``human_judged``, judge agreement (overall and per template; with the
    unparseable judge outputs kept and excluded) and its confusion table."""
    judged = pd.concat([read_frame(p, WC_JUDGEMENTS) for p in judgements], ignore_index=True)
    inst = wc.instances_from_records(read_table(instances, WIKICONTRADICT_INSTANCES).to_pylist(), passage_version)
    excluded = pd.DataFrame(wc.excluded_counts(inst, list(templates)))
    rates = wm.judged_rates(judged, template_order=list(templates), excluded=excluded)
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


def diffgr_generate(*, records, model_dir=None, model: str, dataset: str, prompt: str, closed_book_prompt: str,
                    system_message: str = "", context_orders: Sequence[str], shuffle_seed: int,
                    max_new_tokens: int, seed: int, length_threshold: float,
                    model_cfg: Mapping, backend: str, backend_options: Mapping, batch_size: int, cache_dir: str,
                    answers_out, lengths_out) -> None:
    """Records -> the four reader runs of one model (hybrid in each context order) + context lengths.

    ``system_message`` ('' = none) precedes every reader prompt; ``shuffle_seed`` seeds the
    official random context order (config ``diffgr.random_order_seed``; ``read.py`` seeds 4)."""
    record_rows = read_table(records, CONFLICT_QA_RECORDS).to_pylist()
    rows, lengths = reader_request_rows(record_rows, model, dataset, prompt, closed_book_prompt,
                                        list(context_orders), max_new_tokens, seed, length_threshold,
                                        system_message, shuffle_seed=shuffle_seed)
    gens = generate_for_rows(rows, model, model_cfg, backend, backend_options, cache_dir, local_dir=model_dir,
                             batch_size=batch_size, tag=f"diffgr-{model}-{dataset}",
                             progress=_progress_logger(len(rows), f"diffgr {model} {dataset}"))
    write_table(DIFFGR_READER_ANSWERS.from_rows(reader_answer_rows(rows, gens)), answers_out, DIFFGR_READER_ANSWERS)
    write_table(DIFFGR_LENGTHS.from_rows(lengths), lengths_out, DIFFGR_LENGTHS)
    log.info("%s %s: %d reader answers (system message: %r)", model, dataset, len(rows), system_message)


def diffgr_score(*, answers: Sequence, lengths: Sequence, records: Sequence, datasets: Sequence[str], restrict: bool,
                 length_threshold: float, draws: int, seed: int, level: float, cc_items_out, diffgr_out,
                 length_control_out) -> None:
    """Reader answers of every model x dataset -> CC rows, DiffGR and length-control TSVs.

    ``answers`` / ``lengths`` pair up per model x dataset; ``records`` follow ``datasets``.
    With ``restrict`` the questions whose context pair differs by more than
    ``length_threshold`` in word length are removed before the CC construction
    (``length_removed`` rows; counted in ``n_length_removed`` and in the length-control table).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("always")  # every empty subset / zero denominator reaches the log
        record_rows = {ds: read_table(p, CONFLICT_QA_RECORDS).to_pylist()
                       for ds, p in sorted(dict(zip(datasets, records)).items())}
        cc_rows, summary, length_rows = [], [], []
        seen_length_datasets = set()
        for a_path, l_path in zip(answers, lengths, strict=True):
            answer_rows = read_table(a_path, DIFFGR_READER_ANSWERS).to_pylist()
            length_table = read_table(l_path, DIFFGR_LENGTHS).to_pylist()
            if not answer_rows:
                continue
            model, dataset = answer_rows[0]["model"], answer_rows[0]["dataset"]
            removed = {ln["question_id"] for ln in length_table
                       if restrict and not ln["length_rel_diff"] <= length_threshold}
            if dataset not in seen_length_datasets:
                seen_length_datasets.add(dataset)
                length_rows.append({"dataset": dataset, "threshold": length_threshold,
                                    **length_summary([ln["length_rel_diff"] for ln in length_table],
                                                     length_threshold),
                                    "restricted": bool(restrict), "n_removed": len(removed)})
            orders = sorted({a["order"] for a in answer_rows if a["run"] == "hybrid"}, key=ORDERS.index)
            for order in orders:
                items = merged_items(answer_rows, record_rows[dataset], length_table, order)
                cc_rows += cc_item_rows(model, dataset, order, items, removed)
                summary += diffgr_summary_rows(model, dataset, order, items, removed, draws, seed, level)
    write_table(DIFFGR_CC_ITEMS.from_rows(cc_rows), cc_items_out, DIFFGR_CC_ITEMS)
    write_report_tsv(pd.DataFrame(summary), diffgr_out)
    write_report_tsv(pd.DataFrame(length_rows), length_control_out)
    log.info("wrote %s", [cc_items_out, diffgr_out, length_control_out])


def diffgr_score_files(*, file_sets: Sequence[Mapping], draws: int, seed: int, level: float, out) -> None:
    """Official reader-output files (four per set) -> DiffGR TSV.

    Each set: ``name``, ``dataset``, ``hybrid``, ``generated``, ``retrieved``, ``closed_book``
    (paths). Items are identified by question; ``order`` is reported as ``as_given``.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        rows = []
        for fs in file_sets:
            items = read_merged_items(fs["hybrid"], fs["generated"], fs["retrieved"], fs["closed_book"])
            pairs = [(it.question, it) for it in items]
            rows += diffgr_summary_rows(fs["name"], fs["dataset"], "as_given", pairs, set(), draws, seed, level)
    write_report_tsv(pd.DataFrame(rows).rename(columns={"model": "reader_set"}), out)
    log.info("scored %d reader-file sets", len(file_sets))
