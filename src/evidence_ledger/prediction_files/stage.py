"""Rule function of the account stage (``workflow/rules/account.smk``).

  account_system  a system's gold file + each source's prediction files (config
                  ``external.<format>.<system>``, read by its format) -> the Study 1 tables of one
                  system (ESTIMATES, CLUSTER_COUNTS, COVERAGE, INTERVALS and their report TSVs,
                  ``answer_metrics.tsv``, ITEMS and ITEM_TEXTS), as the ``account`` command writes them

Keyword-only, paths and plain values; the summary page and ``ledger.json`` of the run show the
system beside the verifiers and LLMs (``report.stage``).
"""
from __future__ import annotations

import logging
from typing import Mapping, Sequence

from .format_registry import get_format
from .runs import read_runs
from .tables import DrawSettings, account_runs, read_families
from .write import write_tables

log = logging.getLogger(__name__)


def account_system(*, gold, source0: Sequence[str], source1: Sequence[str], families=None, format_name: str,
                   settings: Mapping, system: str, sources: Sequence[str], resample_runs: bool, draws: int,
                   alpha: float, family_size: int, seed: int, batch_size: int, estimates, estimates_tsv, counts,
                   coverage, intervals, intervals_tsv, metrics_tsv, item_rows, item_texts) -> None:
    """Account one system from its prediction files: ``source0`` / ``source1`` the runs of its two
    sources (named ``sources``), matched by position, read by format ``format_name`` with the
    scorer's ``settings`` (``AccountedFormat.settings_from_entry``); ``families`` an optional
    claim -> family file (the cluster bootstrap); ``estimates`` ... ``item_texts`` the paths of
    ``prediction_files.write.TABLE_FILES``."""
    fmt = get_format(format_name)
    runs = read_runs(fmt, gold, source0, source1, settings)
    family_frame = read_families(families, runs.format, runs.units) if families else None
    draw_settings = DrawSettings(draws=draws, seed=seed, alpha=alpha, family_size=family_size, batch_size=batch_size,
                                 resample_runs=resample_runs)
    accounted = account_runs(runs, system=system, sources=tuple(sources), settings=draw_settings,
                             families=family_frame, families_path=str(families), log=log)
    write_tables(accounted, {"estimates": estimates, "estimates_tsv": estimates_tsv, "counts": counts,
                             "coverage": coverage, "intervals": intervals, "intervals_tsv": intervals_tsv,
                             "metrics_tsv": metrics_tsv, "item_rows": item_rows, "item_texts": item_texts})
    log.info("%s on %s: %d %s, %d runs per source, %d draws", system, fmt.title_of(settings), len(runs.units),
             fmt.item_word, runs.n_runs, draws)
