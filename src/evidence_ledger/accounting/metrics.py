"""The accounting metrics: how a panel's summed numerator and denominator make a score.

In:  nothing at import but the benchmark registry's metrics; an accounted format of prediction
     files may add its own (:func:`register_panel_metric`).
Out: :data:`METRIC_MULTIPLIER` (``T = 100 * multiplier * C / D``) and :func:`is_continuous`.

FEVER / FEVEROUS ``strict``: ``T = 100 * C / N``; SciFact ``f1``: ``T = 100 * 2 C / (P + R)``;
KILT registers ``kilt``: ``T = 100 * C / N`` with continuous numerators. Light on purpose (numpy
only): a format registers its metric when its module is imported, which every command's start-up
does.
"""
from __future__ import annotations

import numpy as np

#: numerator multiplier per accounting metric (the benchmark registry's ``METRICS``, then those
#: registered by accounted formats)
METRIC_MULTIPLIER = {"strict": 1, "f1": 2}


def register_panel_metric(name: str, *, multiplier: int) -> str:
    """Add accounting metric ``name`` (``T = 100 * multiplier * C / D``); registering a name again
    with the same multiplier is a no-op, with another one a ValueError. Returns ``name``."""
    known = METRIC_MULTIPLIER.get(name)
    if known is not None and known != multiplier:
        raise ValueError(f"accounting metric {name!r} is registered with multiplier {known}, not {multiplier}")
    METRIC_MULTIPLIER[name] = multiplier
    return name


def is_continuous(values) -> bool:
    """Numerators held as floats (a continuous answer metric, CLUSTER_SCORES rows), not counts."""
    return np.issubdtype(np.asarray(values).dtype, np.floating)
