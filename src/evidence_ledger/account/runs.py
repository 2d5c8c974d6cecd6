"""The runs of two evidence sources of one system, read from official prediction files.

In:  a benchmark name (``fever``, ``feverous``, ``scifact``; ``kilt``: ``account.kilt_runs``), its official gold file (FEVER
     ``shared_task_dev.jsonl`` / ``paper_dev.jsonl``, FEVEROUS ``*_dev*.jsonl`` with its header
     line, SciFact ``claims_*.jsonl``) and, per source, the prediction files of its runs in the
     benchmark's official submission format (FEVER / FEVEROUS ``{id, predicted_label,
     predicted_evidence}``, SciFact ``{id, evidence: {doc_id: {sentences, label}}}``); run ``i``
     of source 0 is paired with run ``i`` of source 1 (checkpoints or seeds, by position).
Out: :class:`Runs`: per claim (claim-id order of ``accounting.panel.sort_claims``), run and
     source the integer counts the accounting crosses, and for FEVER / FEVEROUS the per-claim
     factorised indicators.

Every file is read and scored by the official-semantics scorers of ``evidence_ledger.scoring``
(the ``score`` command's code), so ``T_aa`` of a run is that file's official score:
FEVER / FEVEROUS ``strict_ab = label_correct_a * eligible_b`` claim by claim (FEVER's NEI
exemption lives in ``eligible``), SciFact ``C_ab = sum label_correct_a * eligible_b`` over the
abstracts source ``a`` predicts, ``T_ab = 100 * 2 C_ab / (P_a + R)`` (``eligible_b``: source
``b`` cites a complete gold rationale of that abstract among its first sentences).
Every gold claim needs a line in every file; a missing, repeated or unknown claim id, a label
outside the benchmark's set, a malformed line (a file of another format) and unequal run counts
are errors naming the file and line (:class:`~evidence_ledger.errors.InputError`).
"""
from __future__ import annotations

import contextlib
import gc
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..accounting.panel import sort_claims
from ..errors import ExpectedError, InputError
from ..scoring import fever, feverous, scifact
from ..vocabulary import ACCOUNTED_BENCHMARKS, KILT


@dataclass(frozen=True)
class ScoringOptions:
    """The official scorers' options (``score`` command flags): evidence items scored, the
    pairing of lines (``auto``: by id; ``position``: by line order) and SciFact's sentence cap."""

    max_evidence: int = fever.MAX_EVIDENCE
    max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL
    max_sentences: int = scifact.MAX_ABSTRACT_SENTS
    sentence_cap: str = "fixed"
    match: str = "auto"
    kilt_metric: str = ""  # KILT: the downstream metric crossed with R-precision 1 (accuracy, em, f1, rougel)

    def of(self, benchmark: str) -> dict:
        """The options that apply to ``benchmark`` (what its scorer reads), for the record."""
        if benchmark == KILT:
            return {"metric": self.kilt_metric, "rank_keys": "wikipedia_id"}
        if benchmark == "fever":
            return {"max_evidence": self.max_evidence, "match": self.match}
        if benchmark == "feverous":
            return {"max_evidence": self.max_evidence, "max_evidence_cell": self.max_evidence_cell,
                    "match": self.match}
        return {"max_sentences": self.max_sentences, "sentence_cap": self.sentence_cap}


@dataclass
class Runs:
    """Indicators of R runs x 2 sources over K gold claims.

    ``num[k, r, a, b]``: numerator of claim ``k`` in run ``r`` with source-``a`` answers and
    source-``b`` evidence (strict: ``correct_a * eligible_b``; SciFact: ``C_ab``);
    ``den[k, r, a]``: its denominator (strict: 1; SciFact: ``P_a + R``). Strict benchmarks
    also carry ``correct[k, r, a]``, ``eligible[k, r, b]``, ``predicted[k, r, a]`` (canonical
    upper-case labels) and ``gold[k]``. KILT (``metric`` ``kilt``, ``account.kilt_runs``):
    ``num`` float64 (``score_a * [rprec_b = 1]``), ``correct`` the continuous answer metric
    ``answer_metric`` per item, ``eligible`` ``[rprec = 1]`` and ``rprec`` the R-precision.
    ``facts``: how the files were read (pairing, counted oddities), summed over files."""

    benchmark: str
    metric: str
    gold_path: str
    files: tuple[tuple[str, ...], tuple[str, ...]]
    units: list[str]
    num: np.ndarray
    den: np.ndarray
    gold: np.ndarray | None = None
    correct: np.ndarray | None = None
    eligible: np.ndarray | None = None
    predicted: np.ndarray | None = None
    facts: dict = field(default_factory=dict)
    rprec: np.ndarray | None = None
    answer_metric: str = ""

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


def read_runs(benchmark: str, gold_path, source0: Sequence, source1: Sequence,
              options: ScoringOptions = ScoringOptions(), jobs: int = 1) -> Runs:
    """Read and score every run of both sources against ``gold_path`` (see the module doc);
    ``jobs`` > 1 scores FEVER / FEVEROUS / KILT files in that many processes."""
    if benchmark not in ACCOUNTED_BENCHMARKS:
        raise ExpectedError(f"benchmark {benchmark!r}: official prediction files are read for "
                            f"{list(ACCOUNTED_BENCHMARKS)}")
    check_run_counts(source0, source1)
    files = (tuple(str(p) for p in source0), tuple(str(p) for p in source1))
    for path in files[0] + files[1] + (str(gold_path),):
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such file")
    if benchmark == KILT:
        from .kilt_runs import read_kilt_runs  # kilt_runs builds this module's Runs

        return read_kilt_runs(str(gold_path), files, options.kilt_metric, jobs)
    if benchmark == "scifact":
        return _read_scifact(str(gold_path), files, options)
    return _read_strict(benchmark, str(gold_path), files, options, jobs)


#: how a FEVER / FEVEROUS file's lines were paired with the gold lines, summed over the files
#: (``Runs.facts``; the ``score`` command's ``matching``, ``id_disagreements`` and ``own_gold_ignored``)
MATCHING_FACTS = ("files_matched_by_position", "id_disagreements", "own_gold_ignored")


@dataclass
class FileScores:
    """One FEVER / FEVEROUS file scored: per claim (gold order) its id, gold line and label, the
    answer and evidence indicators and the predicted label; how its lines were paired; and the
    warnings its scorer gave (those the ``score`` command prints), in order."""

    claim_ids: list
    gold_lines: list
    gold_labels: list
    correct: np.ndarray
    eligible: np.ndarray
    predicted: list
    by_position: bool
    id_disagreements: int
    own_gold_ignored: int
    warned: list[str] = field(default_factory=list)


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


class FileScorer:
    """Scores FEVER / FEVEROUS prediction files against one gold file, read and parsed once."""

    def __init__(self, benchmark: str, gold_path: str, options: ScoringOptions):
        self.benchmark, self.gold_path, self.options = benchmark, gold_path, options
        self.scorer = fever if benchmark == "fever" else feverous
        self.gold = self.scorer.read_gold(gold_path)
        self.parsed: dict = {}

    def __call__(self, path: str) -> FileScores:
        with warnings.catch_warnings(record=True) as warned, paused_gc():  # kept, and given again by read_runs
            warnings.simplefilter("always")
            caps = ((self.options.max_evidence,) if self.benchmark == "fever"
                    else (self.options.max_evidence, self.options.max_evidence_cell))
            submission, lines = self.scorer.scored_lines(self.gold_path, path, *caps, match=self.options.match,
                                                         gold=self.gold, parsed_gold=self.parsed)
        return FileScores([x.claim_id for x in lines], [x.gold_line for x in lines],
                          [x.gold_label.upper() for x in lines],
                          np.array([x.score.label_correct for x in lines], dtype=np.int64),
                          np.array([x.score.evidence_eligible for x in lines], dtype=np.int64),
                          [x.predicted_label.upper() for x in lines], submission.mode == "position",
                          submission.id_disagreements, submission.own_gold_ignored,
                          [str(w.message) for w in warned])


_POOL_SCORER: FileScorer | None = None  # the scorer of a worker process (set by its initializer)


def _pool_init(benchmark: str, gold_path: str, options: ScoringOptions) -> None:
    global _POOL_SCORER
    _POOL_SCORER = FileScorer(benchmark, gold_path, options)


def _pool_score(path: str) -> FileScores:
    return _POOL_SCORER(path)


def score_files(benchmark: str, gold_path: str, paths: Sequence[str], options: ScoringOptions,
                jobs: int = 1) -> list[FileScores]:
    """:class:`FileScores` of every file, in order; ``jobs`` > 1 uses that many processes, each
    reading the gold file once (an InputError of any file is raised as it is)."""
    jobs = max(1, min(jobs, len(paths)))
    if jobs == 1:
        scorer = FileScorer(benchmark, gold_path, options)
        return [scorer(p) for p in paths]
    with ProcessPoolExecutor(max_workers=jobs, initializer=_pool_init,
                             initargs=(benchmark, gold_path, options)) as pool:
        return list(pool.map(_pool_score, paths))


def _unique_gold_ids(scores: FileScores, gold_path: str) -> None:
    """Claim ids are the resampling units: a gold file repeating one is refused (by position
    the scorers pair lines without looking at ids)."""
    first: dict[str, int] = {}
    for claim_id, line in zip(scores.claim_ids, scores.gold_lines):
        if claim_id in first:
            raise InputError(gold_path, line, "id", f"claim id {claim_id!r} occurs twice (lines {first[claim_id]} "
                                                    f"and {line})")
        first[claim_id] = line


def _read_strict(benchmark: str, gold_path: str, files, options: ScoringOptions, jobs: int) -> Runs:
    R = len(files[0])
    scored = score_files(benchmark, gold_path, list(files[0] + files[1]), options, jobs)
    _unique_gold_ids(scored[0], gold_path)
    units = sort_claims(scored[0].claim_ids)
    if not units:
        raise InputError(gold_path, None, None, "no gold claims")
    pos = {c: i for i, c in enumerate(units)}
    K = len(units)
    gold = np.empty(K, dtype=object)
    correct = np.zeros((K, R, 2), dtype=np.int64)
    eligible = np.zeros((K, R, 2), dtype=np.int64)
    predicted = np.empty((K, R, 2), dtype=object)
    facts = dict.fromkeys(MATCHING_FACTS, 0)
    for i, file_scores in enumerate(scored):
        for message in file_scores.warned:  # what `score` says of this file (a process pool's workers say nothing)
            warnings.warn(message, stacklevel=2)
        a, r = divmod(i, R)
        k = np.array([pos[c] for c in file_scores.claim_ids], dtype=np.int64)
        gold[k] = file_scores.gold_labels
        correct[k, r, a] = file_scores.correct
        eligible[k, r, a] = file_scores.eligible
        predicted[k, r, a] = file_scores.predicted
        facts["files_matched_by_position"] += file_scores.by_position
        facts["id_disagreements"] += file_scores.id_disagreements
        facts["own_gold_ignored"] += file_scores.own_gold_ignored
    num = correct[:, :, :, None] * eligible[:, :, None, :]
    den = np.ones(correct.shape, dtype=np.int64)
    return Runs(benchmark, "strict", gold_path, files, units, num, den, gold, correct, eligible, predicted, facts)


def _read_scifact(gold_path: str, files, options: ScoringOptions) -> Runs:
    R = len(files[0])
    per_file = [[None] * R, [None] * R]
    gold = None
    for a, paths in enumerate(files):
        for r, path in enumerate(paths):
            gold, per_file[a][r], _ = scifact.read_submission(gold_path, path, "refuse")
    units = sort_claims(gold)
    K = len(units)
    num = np.zeros((K, R, 2, 2), dtype=np.int64)
    den = np.zeros((K, R, 2), dtype=np.int64)
    for k, claim_id in enumerate(units):
        abstracts = gold[claim_id]
        for r in range(R):
            answers = [per_file[a][r].get(claim_id, {}) for a in (0, 1)]
            for a in (0, 1):
                den[k, r, a] = len(answers[a]) + len(abstracts)
                for b in (0, 1):
                    num[k, r, a, b] = sum(
                        scifact.abstract_label_correct(abstracts, doc, pred.label)
                        and doc in answers[b]
                        and scifact.abstract_eligible(abstracts, doc, answers[b][doc].sentences,
                                                      _sentence_cap(abstracts, doc, options))
                        for doc, pred in answers[a].items())
    return Runs("scifact", "f1", gold_path, files, units, num, den, facts={})


def _sentence_cap(abstracts, doc: str, options: ScoringOptions) -> int:
    """Predicted sentences that count for abstract ``doc``: ``max_sentences``, or with the
    leaderboard cap ``max(max_sentences, shortest gold rationale)`` (``scoring.scifact``)."""
    if options.sentence_cap == "leaderboard" and doc in abstracts:
        return scifact.leaderboard_cap(abstracts[doc], options.max_sentences)
    return options.max_sentences
