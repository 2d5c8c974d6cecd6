"""Rule functions of the DiffGR stage (one per rule of ``workflow/rules/diffgr.smk``).

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
from typing import Mapping, Sequence

import pandas as pd

from ..generation.chat_rows import generate_for_rows, progress_logger
from ..tables.report_tsv import write_report_tsv
from ..scoring.diffgr import read_merged_items
from ..tables import read_table, write_table
from ..tables.conflict import DIFFGR_CC_ITEMS, DIFFGR_LENGTHS, DIFFGR_READER_ANSWERS
from ..tables.conflict_inputs import CONFLICT_QA_RECORDS
from .pipeline import (ORDERS, REQUEST_ITEM, cc_item_rows, diffgr_summary_rows, length_summary, merged_items,
                       reader_answer_rows, reader_request_rows)

log = logging.getLogger(__name__)


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
                                        context_orders=list(context_orders), max_new_tokens=max_new_tokens, seed=seed,
                                        threshold=length_threshold, system_message=system_message,
                                        shuffle_seed=shuffle_seed)
    gens = generate_for_rows(rows, model, model_cfg, backend, backend_options, cache_dir, local_dir=model_dir,
                             batch_size=batch_size, tag=f"diffgr-{model}-{dataset}",
                             progress=progress_logger(len(rows), f"diffgr {model} {dataset}"),
                             item_keys=REQUEST_ITEM, output_key="diffgr.max_new_tokens")
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
