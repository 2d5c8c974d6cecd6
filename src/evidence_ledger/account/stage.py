"""Rule function of the account stage (``workflow/rules/account.smk``).

  account_system  the official gold file + each source's run files (config ``external``; KILT:
                  ``external.kilt``, its gold file and downstream metric named by the entry) ->
                  the Study 1 tables of one system (ESTIMATES, CLUSTER_COUNTS, COVERAGE, INTERVALS
                  and their report TSVs, ``answer_metrics.tsv``), as the ``account`` command writes

Keyword-only, paths and plain values; the summary page and ``ledger.json`` of the run show the
system beside the verifiers and LLMs (``report.stage``).
"""
from __future__ import annotations

import logging
from typing import Sequence

from ..vocabulary import KILT
from .runs import ScoringOptions, read_runs
from .tables import DrawSettings, account_runs, read_families
from .write import write_tables

log = logging.getLogger(__name__)


def account_system(*, gold, source0: Sequence[str], source1: Sequence[str], families=None, benchmark: str,
                   system: str, sources: Sequence[str], resample_runs: bool, max_evidence: int | None,
                   max_evidence_cell: int | None, max_sentences: int | None, kilt_metric: str, draws: int, alpha: float, family_size: int, seed: int,
                   batch_size: int, estimates, estimates_tsv, counts, coverage, intervals, intervals_tsv,
                   metrics_tsv) -> None:
    """Account one system from its prediction files: ``source0`` / ``source1`` the runs of its two
    sources (named ``sources``), matched by position; ``families`` an optional claim -> family
    file (the cluster bootstrap); ``estimates`` ... ``metrics_tsv`` the paths of
    ``account.write.TABLE_FILES``; ``kilt_metric``: KILT's downstream metric ('' for the other
    benchmarks, whose scorer caps ``max_*`` are None for KILT)."""
    options = ScoringOptions(kilt_metric=kilt_metric) if benchmark == KILT else ScoringOptions(
        max_evidence=max_evidence, max_evidence_cell=max_evidence_cell, max_sentences=max_sentences)
    runs = read_runs(benchmark, gold, source0, source1, options)
    family_frame = read_families(families, runs.benchmark, runs.units) if families else None
    settings = DrawSettings(draws=draws, seed=seed, alpha=alpha, family_size=family_size, batch_size=batch_size,
                            resample_runs=resample_runs)
    accounted = account_runs(runs, system=system, sources=tuple(sources), settings=settings, families=family_frame,
                             families_path=str(families), log=log)
    write_tables(accounted, {"estimates": estimates, "estimates_tsv": estimates_tsv, "counts": counts,
                             "coverage": coverage, "intervals": intervals, "intervals_tsv": intervals_tsv,
                             "metrics_tsv": metrics_tsv})
    log.info("%s on %s: %d claims, %d runs per source, %d draws", system, benchmark, len(runs.units), runs.n_runs,
             draws)
