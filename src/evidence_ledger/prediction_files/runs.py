"""The runs of two evidence sources of one system, read from prediction files of any format.

In:  an accounted format (``format_registry``), its gold file, the scorer's settings and, per
     source, the prediction files of its runs; run ``i`` of source 0 is paired with run ``i`` of
     source 1 (checkpoints or seeds, by position).
Out: :class:`Runs`: per gold item (claim-id order of ``accounting.panel.sort_claims``), run and
     source the numbers the accounting crosses.

Every file is read and scored by its format (the ``score`` command's code), the gold file read
once per process, and every file is read before anything is written: ``T_aa`` of a run is that
file's official score, and ``T_ab`` the official score of a file holding run ``a``'s answers and
run ``b``'s evidence (the format's ``cross``). With ``jobs`` > 1 the files are scored in that
many processes (:func:`score_files`, one pool for every format); the scorers' warnings are given
in the calling process, file by file. Unequal run counts, a missing file and bad input (the
format's ``InputError``, naming the file and line) stop before anything is written.
"""
from __future__ import annotations

import contextlib
import gc
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..accounting.panel import sort_claims
from ..errors import ExpectedError, InputError
from .format_registry import AccountedFormat, get_format
from .item_scores import ItemScores, aligned

#: how the tables name the cell set of runs read from prediction files: answers as the files give
#: them (format ``official``, parser ``none``), evidence unbudgeted (``full``)
FORMAT = "official"
PARSER = "none"
BUDGET = "full"


@dataclass
class Runs:
    """R runs x 2 sources over K gold items of one format.

    ``num[k, r, a, b]``: the numerator of item ``k`` in run ``r`` with source-``a`` answers and
    source-``b`` evidence (the format's ``cross``: ``answer_a * eligible_b``; SciFact ``C_ab``);
    ``den[k, r, a]``: its denominator (1; SciFact ``P_a + R``). Where the format scores them per
    item, ``answer[k, r, a]`` is the answer score (named ``answer_name`` in the tables),
    ``eligible[k, r, b]`` the evidence's eligibility and ``evidence[k, r, b]`` the evidence score
    where it is more than that (named ``evidence_name``); where answers are labels,
    ``gold_class[k]`` and ``predicted[k, r, a]`` are the classes. ``texts``: what an item
    explorer shows, ``claim`` and ``gold`` per item (K,), ``answer`` and ``evidence`` per item,
    run and source (K, R, 2), where the format gives them. ``facts``: what the files' reading
    counted (summed over files; the gold file's own once)."""

    format: str
    metric: str
    gold_path: str
    files: tuple[tuple[str, ...], tuple[str, ...]]
    units: list[str]
    num: np.ndarray
    den: np.ndarray
    answer: np.ndarray | None = None
    eligible: np.ndarray | None = None
    evidence: np.ndarray | None = None
    gold_class: np.ndarray | None = None
    predicted: np.ndarray | None = None
    answer_name: str = ""
    evidence_name: str = ""
    texts: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)

    @property
    def n_runs(self) -> int:
        return self.num.shape[1]

    @property
    def replicates(self) -> list[int]:
        """Run numbers 1..R (the replicate index of the tables, like Study 1's checkpoints)."""
        return list(range(1, self.n_runs + 1))


def check_run_counts(source0: Sequence, source1: Sequence, names: Sequence[str] = ("--source0", "--source1")) -> None:
    """Runs are matched by position, so both sources need the same number (at least one)."""
    if not source0 or not source1:
        raise ExpectedError(f"{names[0] if not source0 else names[1]} names no prediction file: each source needs "
                            f"at least one run")
    if len(source0) != len(source1):
        raise ExpectedError(f"{names[0]} has {len(source0)} runs ({', '.join(map(str, source0))}) and {names[1]} has "
                            f"{len(source1)} ({', '.join(map(str, source1))}): runs are matched by position (run i "
                            f"of source 0 with run i of source 1), so give the same number for each source")


@contextlib.contextmanager
def paused_gc():
    """The cyclic garbage collector paused: scoring a file allocates hundreds of thousands of
    small acyclic objects (JSON values, id tuples) that reference counting frees, and the
    collector's passes over them cost about a third of the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def scored_with_warnings(fmt: AccountedFormat, gold, path: str, settings: Mapping) -> ItemScores:
    """One file's :class:`ItemScores` with the warnings its scorer gave, in order (kept, to be
    given again where they are printed)."""
    with warnings.catch_warnings(record=True) as warned, paused_gc():
        warnings.simplefilter("always")
        scores = fmt.score_file(gold, path, settings)
    scores.warned = [str(w.message) for w in warned]
    return scores


_POOL: tuple | None = None  # (format, gold, settings) of a worker process (set by its initializer)


def _pool_init(name: str, gold_path: str, settings: Mapping) -> None:
    global _POOL
    fmt = get_format(name)
    _POOL = (fmt, fmt.read_gold(gold_path, settings), settings)


def _pool_score(path: str) -> ItemScores:
    fmt, gold, settings = _POOL
    return scored_with_warnings(fmt, gold, path, settings)


def score_files(fmt: AccountedFormat, gold_path: str, paths: Sequence[str], settings: Mapping,
                jobs: int = 1) -> list[ItemScores]:
    """Every file's :class:`ItemScores`, in order; ``jobs`` > 1 scores them in that many
    processes, each reading the gold file once (an InputError of any file is raised as it is).
    The scorers' warnings are given here, file by file, as ``score`` gives them."""
    jobs = max(1, min(jobs, len(paths)))
    if jobs == 1:
        gold = fmt.read_gold(gold_path, settings)
        scored = [scored_with_warnings(fmt, gold, path, settings) for path in paths]
    else:
        with ProcessPoolExecutor(max_workers=jobs, initializer=_pool_init,
                                 initargs=(fmt.name, gold_path, dict(settings))) as pool:
            scored = list(pool.map(_pool_score, paths))
    for scores in scored:
        for message in scores.warned:
            warnings.warn(message, stacklevel=2)
    return scored


def summed_facts(fmt: AccountedFormat, scored: Sequence[ItemScores]) -> dict:
    """The files' facts summed, those of the gold file (``fmt.gold_facts``) counted once."""
    facts = {name: int(scored[0].facts.get(name, 0)) for name in fmt.gold_facts}
    for scores in scored:
        for name, value in scores.facts.items():
            if name not in fmt.gold_facts:
                facts[name] = facts.get(name, 0) + int(value)
    return facts


def stacked(files: Sequence[Sequence[ItemScores]], field_name: str) -> np.ndarray | None:
    """``(K, R, 2)`` of a per-item field of every file (``files[a][r]``), or None where the
    format does not score it."""
    values = [[getattr(scores, field_name) for scores in run] for run in files]
    if any(v is None for run in values for v in run):
        return None
    return np.stack([np.stack(run, axis=1) for run in values], axis=2)


def stacked_texts(files: Sequence[Sequence[ItemScores]]) -> dict[str, np.ndarray]:
    """The texts of every file: the gold file's (``claim``, ``gold``) once, (K,); each file's own
    (``answer``, ``evidence``) as (K, R, 2) object arrays."""
    first = files[0][0]
    texts = {kind: np.asarray(first.texts[kind], dtype=object) for kind in ("claim", "gold") if kind in first.texts}
    for kind in ("answer", "evidence"):
        if all(kind in scores.texts for run in files for scores in run):
            out = np.empty((len(first), len(files[0]), 2), dtype=object)
            for a, run in enumerate(files):
                for r, scores in enumerate(run):
                    out[:, r, a] = scores.texts[kind]
            texts[kind] = out
    return texts


def read_runs(fmt: AccountedFormat, gold_path, source0: Sequence, source1: Sequence, settings: Mapping,
              jobs: int = 1) -> Runs:
    """Read and score every run of both sources against ``gold_path`` (see the module doc)."""
    check_run_counts(source0, source1)
    files = (tuple(str(p) for p in source0), tuple(str(p) for p in source1))
    for path in files[0] + files[1] + (str(gold_path),):
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such file")
    R = len(files[0])
    fmt.check_gold(str(gold_path), settings)
    scored = score_files(fmt, str(gold_path), list(files[0] + files[1]), settings, jobs)
    units = sort_claims(scored[0].ids)
    if not units:
        raise InputError(gold_path, None, None, f"no gold {fmt.item_word}")
    position = {item: k for k, item in enumerate(units)}
    by_source = [[aligned(scored[a * R + r], position) for r in range(R)] for a in (0, 1)]
    num = np.stack([np.stack([np.stack([fmt.cross(by_source[a][r], by_source[b][r]) for b in (0, 1)], axis=1)
                              for a in (0, 1)], axis=1) for r in range(R)], axis=1)
    den = stacked(by_source, "den")
    if den is None:
        den = np.ones(num.shape[:3], dtype=np.int64)
    first = by_source[0][0]
    predicted = None
    if first.classes is not None:
        predicted = np.empty((len(units), R, 2), dtype=object)
        for a in (0, 1):
            for r in range(R):
                predicted[:, r, a] = by_source[a][r].classes[1]
    gold_class = None if first.classes is None else np.asarray(first.classes[0], dtype=object)
    return Runs(fmt.name, fmt.panel_metric, str(gold_path), files, units, num, den,
                answer=stacked(by_source, "answer"), eligible=stacked(by_source, "eligible"),
                evidence=stacked(by_source, "evidence"), gold_class=gold_class, predicted=predicted,
                answer_name=fmt.answer_name(settings), evidence_name=fmt.evidence_name,
                texts=stacked_texts(by_source), facts=summed_facts(fmt, scored))
