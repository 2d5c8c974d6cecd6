"""The runs of two sources of one retrieval-augmented system, read from KILT prediction files.

In:  a KILT gold file (``<task>-dev-kilt.jsonl``: ``{id, input, output: [{answer, provenance}]}``),
     per source the prediction files of its runs in KILT's format (``{id, output: [{answer,
     provenance: [{wikipedia_id, ...}]}]}``, exactly one output), and the downstream metric
     (``accuracy``, ``em``, ``f1``, ``rougel``).
Out: :class:`~.runs.Runs` with ``metric`` ``kilt``: per gold item (``accounting.panel.sort_claims``
     order), run and source the answer metric ``score[k, r, a]`` (``Runs.correct``, float64),
     the R-precision of the provenance ``rprec[k, r, b]`` and its eligibility
     ``[rprec = 1]`` (``Runs.eligible``), and ``num[k, r, a, b] = score_a * [rprec_b = 1]``,
     ``den = 1``: so ``T_ab = 100 * mean_k num`` is the official ``KILT-<metric>`` of a file
     holding run ``a``'s answers and run ``b``'s provenance (KILT-* rank provenance by
     ``wikipedia_id``, as KILT's ``eval_downstream.py`` does).

Every file is scored by ``scoring.kilt`` (the ``score kilt`` command's code), the gold file
read once; every file is read before anything is written. Bad input (a missing or repeated id,
a prediction without exactly one output, an output without an answer, a gold item without an
answer) is an :class:`~evidence_ledger.errors.InputError` naming the file and line
(``scoring.kilt_files``); what the official code skips or accepts silently is counted in
``Runs.facts`` (summed over the run files; the gold file's own facts, :data:`GOLD_FACTS`, once)
and warned.
"""
from __future__ import annotations

import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Sequence

import numpy as np

from ..accounting.answer_scores import rprec_eligible
from ..accounting.panel import sort_claims
from ..errors import ExpectedError, InputError
from ..scoring import kilt
from ..vocabulary import KILT, KILT_TASK_METRICS
from .runs import Runs

#: counted facts of the gold file (the same in every run's scoring): counted once, not per file
GOLD_FACTS = ("gold_provenance_missing_rank_key", "rougel_empty_references", "gold_outputs_without_answer",
              "gold_outputs_without_provenance")


def check_kilt_metric(metric: str) -> str:
    if metric not in kilt.KILT_METRICS:
        raise ExpectedError(f"KILT metric {metric!r}: one of {list(kilt.KILT_METRICS)}")
    return metric


_POOL_GOLD: tuple | None = None  # (gold path, its items, metric) of a worker process (set by its initializer)


def _pool_init(gold_path: str, metric: str) -> None:
    global _POOL_GOLD
    _POOL_GOLD = (gold_path, kilt.read_kilt_gold(gold_path), metric)


def _pool_score(path: str) -> tuple[kilt.KiltItemScores, list[str]]:
    with warnings.catch_warnings(record=True) as warned:  # given again by the parent (score_kilt_runs)
        warnings.simplefilter("always")
        scores = kilt.score_kilt_items(_POOL_GOLD[0], path, rank_keys=kilt.KILT_RANK_KEYS, gold=_POOL_GOLD[1],
                                       metrics=(_POOL_GOLD[2],))
    return scores, [str(w.message) for w in warned]


def score_kilt_runs(gold_path: str, paths: Sequence[str], metric: str, jobs: int = 1) -> list[kilt.KiltItemScores]:
    """The per-item scores of every file under ``metric`` (the others may be left uncomputed), in
    order; ``jobs`` > 1 scores them in that many processes, each reading the gold file once (an
    InputError of any file is raised as it is; the scorer's warnings are given in this process,
    file by file, as ``score kilt`` gives them)."""
    jobs = max(1, min(jobs, len(paths)))
    if jobs == 1:
        gold = kilt.read_kilt_gold(gold_path)
        return [kilt.score_kilt_items(gold_path, p, rank_keys=kilt.KILT_RANK_KEYS, gold=gold, metrics=(metric,))
                for p in paths]
    with ProcessPoolExecutor(max_workers=jobs, initializer=_pool_init, initargs=(gold_path, metric)) as pool:
        scored = list(pool.map(_pool_score, paths))
    for _, messages in scored:
        for message in messages:
            warnings.warn(message, stacklevel=2)
    return [scores for scores, _ in scored]


def read_kilt_runs(gold_path: str, files: tuple[tuple[str, ...], tuple[str, ...]], metric: str, jobs: int = 1):
    """Score every run of both sources (see the module doc); ``files``: the paths of source 0's
    and source 1's runs, matched by position; ``jobs`` > 1 scores them in that many processes."""
    check_kilt_metric(metric)
    R = len(files[0])
    scored = score_kilt_runs(gold_path, list(files[0] + files[1]), metric, jobs)
    units = sort_claims(scored[0].ids)  # ids are unique: read_kilt_gold refuses a repeated one
    if not units:
        raise InputError(gold_path, None, None, "no gold items")
    pos = {c: i for i, c in enumerate(units)}
    K = len(units)
    score = np.zeros((K, R, 2), dtype=np.float64)
    rprec = np.zeros((K, R, 2), dtype=np.float64)
    facts = {name: int(scored[0].facts.get(name, 0)) for name in GOLD_FACTS}
    for i, item_scores in enumerate(scored):
        a, r = divmod(i, R)
        k = np.array([pos[c] for c in item_scores.ids], dtype=np.int64)
        score[k, r, a] = item_scores.metric(metric)
        rprec[k, r, a] = item_scores.rprec
        for name, value in item_scores.facts.items():
            if name not in GOLD_FACTS:
                facts[name] = facts.get(name, 0) + int(value)
    eligible = rprec_eligible(rprec)
    num = score[:, :, :, None] * eligible[:, :, None, :]
    den = np.ones((K, R, 2), dtype=np.int64)
    return Runs(KILT, "kilt", gold_path, files, units, num, den, correct=score, eligible=eligible,
                rprec=rprec, answer_metric=metric, facts=facts)


def kilt_metric_of(task: str | None, metric: str | None, *, task_key: str = "--task",
                   metric_key: str = "--metric") -> str:
    """The downstream metric: ``metric`` when given, else the KILT paper's metric of ``task``
    (``vocabulary.KILT_TASK_METRICS``); neither is an error saying to give one."""
    if metric:
        return check_kilt_metric(metric)
    if task:
        if task not in KILT_TASK_METRICS:
            raise ExpectedError(f"{task_key} {task!r}: one of {list(KILT_TASK_METRICS)}")
        return KILT_TASK_METRICS[task]
    raise ExpectedError(f"KILT needs its downstream metric: give {metric_key} ({', '.join(kilt.KILT_METRICS)}) or "
                        f"{task_key} (the KILT dataset, e.g. nq; its metric as the KILT paper reports it)")

