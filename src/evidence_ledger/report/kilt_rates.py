"""The answer and provenance rates of a KILT accounting, named for its downstream metric.

In:  the downstream metric (``accuracy``, ``em``, ``f1``, ``rougel``), or the estimates TSV of an
     accounted KILT system (``account`` / rule ``account_system``) and its answer-metric TSV.
Out: ``(quantity, meaning)`` rows (:func:`continuous_rates`: the terminal table of ``account
     kilt`` and the summary page share them) and the summary-page table of those rates with
     their intervals (:func:`kilt_rates_table`).

The quantities are ``accounting.answer_scores.continuous_metric_names``: the answer metric per
source (``em_0``: KILT answer metric EM, source-0 answers), mean R-precision per source, and the
items whose provenance reaches R-precision 1 (KILT's condition for a downstream point, shown as
``eligibility``), each with its source-1 minus source-0 difference.
"""
from __future__ import annotations

from .sources import SourceTable, find_row
from .summary import Table

#: how the KILT metrics are written on the page and in the terminal (KILT's own output keys are
#: ``accuracy``, ``em``, ``f1``, ``rougel``)
METRIC_TITLES = {"accuracy": "accuracy", "em": "EM", "f1": "F1", "rougel": "ROUGE-L"}


def metric_title(metric: str) -> str:
    return METRIC_TITLES.get(metric, metric)


def continuous_rates(metric: str) -> tuple[tuple[str, str], ...]:
    """The rate rows of a KILT accounting with downstream ``metric``."""
    title = metric_title(metric)
    return (
        (f"{metric}_0", f"KILT answer metric {title}, source-0 answers"),
        (f"{metric}_1", f"KILT answer metric {title}, source-1 answers"),
        (f"{metric}_diff", f"{title}, source 1 - source 0"),
        ("rprec_0", "mean R-precision of the source-0 provenance"),
        ("rprec_1", "mean R-precision of the source-1 provenance"),
        ("rprec_diff", "R-precision, source 1 - source 0"),
        ("eligibility_0", "items whose source-0 provenance has R-precision 1"),
        ("eligibility_1", "items whose source-1 provenance has R-precision 1"),
        ("eligibility_diff", "R-precision 1, source 1 - source 0"),
        ("eq4_covariance_0", "Eq. 4 covariance term of E0: cov(c_0, dE), c = answer metric"),
        ("eq4_covariance_1", "Eq. 4 covariance term of E1: cov(c_1, dE), c = answer metric"),
    )


def accounted_metric(estimates: SourceTable) -> str | None:
    """The downstream metric of a KILT accounting's estimates (the one whose ``<metric>_diff``
    row sits beside ``rprec_diff``); None for the other benchmarks (no R-precision rows)."""
    if find_row(estimates, population="all", quantity="rprec_diff", part="", replicate="-1") is None:
        return None
    for metric in METRIC_TITLES:
        if find_row(estimates, population="all", quantity=f"{metric}_diff", part="", replicate="-1") is not None:
            return metric
    return None


def kilt_rates_table(estimates: SourceTable, metrics: SourceTable | None, metric: str, estimate_or_interval) -> Table:
    """The page's table of the rates (``estimate_or_interval``: the accounted section's cell of a
    quantity, its interval from ``metrics`` where there is one)."""
    rows = tuple(((q,), (meaning,), estimate_or_interval(estimates, metrics, quantity=q))
                 for q, meaning in continuous_rates(metric)[:9])
    return Table(("Quantity", "Definition", "Estimate [interval]"), rows, (False, False, True),
                 caption=f"KILT's downstream {metric_title(metric)} of each source's answers, the R-precision of "
                         f"each source's provenance (ranked by wikipedia_id) and the items it ranks perfectly "
                         f"(R-precision 1: the items where KILT-{metric} can award a point); points.")
