"""Cluster bootstrap over integer count arrays: paired, seeded, batched, BLAS-backed.

In:  ``counts`` (clusters, seeds, stats) int64 -- per-cluster sums of the scoring counts for
     every replicate/seed and count statistic (e.g. an ``accounting.panel.CountPanel`` flattened by
     ``accounting.intervals.panel_counts``) -- and a
     ``statistic`` mapping resampled totals (draws, seeds, stats) float64 to (draws, outputs).
Out: (draws, outputs) float64 draws and linear percentile intervals.

Draw protocol (one ``numpy.random.Generator(PCG64(seed))`` per call, batches of
``batch_size`` draws; the last batch may be shorter): for each batch,
``idx = rng.integers(0, n_clusters, (b, n_clusters), dtype=index_dtype(n_clusters))``
resamples clusters with replacement, then, if seeds are resampled,
``sidx = rng.integers(0, n_seeds, (b, n_seeds))`` resamples seed indices with replacement
(otherwise every draw uses all seeds in order: Study 1 checkpoints are averaged, not
resampled). Every output of the statistic is computed from the same draws, so paired
conditions share their samples.

Implementation: each batch's cluster indices become a (b, clusters) multiplicity matrix
(one ``bincount``) multiplied by the per-cluster sums (one GEMM, one BLAS thread; float32
when every possible total is below 2**24, else float64 below 2**53; identical count columns
are multiplied once). All products and sums are of integers within the exact range, so the
totals equal those of a per-draw loop summing ``counts[idx]`` in int64; statistics built by
:func:`contrast_statistic` use only element-wise operations, so the two give bit-identical
draws and intervals (tests/support/bootstrap_reference.py keeps that loop). Run with one BLAS
thread (``OMP_NUM_THREADS=1``) when jobs share cores.

Continuous counts (a float64 ``counts`` array, e.g. KILT's per-item F1 or ROUGE-L times an
R-precision indicator) take the same path in float64: the index draws are the same, the totals
are float sums (each within a few ulps of the exact sum; not bit-identical to a per-draw loop
summing in another order, and the batch size, which shapes the GEMM, may move one by an ulp).

Generic: nothing here knows about studies, datasets or panels (``accounting.intervals`` does).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterator, Sequence

import numpy as np


Statistic = Callable[[np.ndarray], np.ndarray]
EXACT_LIMIT = 2 ** 53


def draw_batches(rng: np.random.Generator, n_clusters: int, n_seeds: int, draws: int, batch_size: int,
                 resample_seeds: bool) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Yield ``(start, idx (b, n_clusters), sidx (b, n_seeds))`` following the draw protocol."""
    if draws < 1 or batch_size < 1:
        raise ValueError("draws and batch_size must be positive")
    for start in range(0, draws, batch_size):
        b = min(batch_size, draws - start)
        idx = rng.integers(0, n_clusters, size=(b, n_clusters), dtype=index_dtype(n_clusters))
        if resample_seeds:
            sidx = rng.integers(0, n_seeds, size=(b, n_seeds))
        else:
            sidx = np.broadcast_to(np.arange(n_seeds), (b, n_seeds))
        yield start, idx, sidx


def index_dtype(n_clusters: int):
    """The integer dtype cluster indices are drawn in (part of the draw protocol: numpy's
    bounded generator consumes the PCG64 stream differently per dtype); uint16 while it holds
    the range, which makes drawing ~30% cheaper."""
    return np.uint16 if n_clusters <= 2 ** 16 else np.int64


def multiplicities(idx: np.ndarray, n_clusters: int) -> np.ndarray:
    """(b, n_clusters) how often each cluster was drawn in each row of ``idx``."""
    b = idx.shape[0]
    flat = (idx.astype(np.int64) + (np.arange(b, dtype=np.int64) * n_clusters)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n_clusters).reshape(b, n_clusters)


def gemm_dtype(counts: np.ndarray):
    """float32 when every resampled total (at most max|count| x clusters) stays below 2**24,
    so single-precision products and sums of integers are exact; float64 below 2**53;
    otherwise an error. Continuous counts (a float array: a per-item answer score such as
    KILT's F1) are multiplied in float64."""
    if np.issubdtype(counts.dtype, np.floating):
        return np.float64
    bound = int(np.abs(counts).max(initial=0)) * counts.shape[0]
    if bound < 2 ** 24:
        return np.float32
    if bound < EXACT_LIMIT:
        return np.float64
    raise OverflowError("resampled totals could exceed 2**53; a float64 GEMM would no longer be exact")


def one_blas_thread():
    """Context limiting BLAS to one thread (threadpoolctl when installed; otherwise the
    caller's OMP_NUM_THREADS / OPENBLAS_NUM_THREADS decide). Results do not depend on it:
    the GEMM sums integers exactly; only speed and core sharing do."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def bootstrap_draws(counts: np.ndarray, statistic: Statistic, *, draws: int, seed: int, batch_size: int = 128,
                    resample_seeds: bool = True, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Bootstrap draws of ``statistic`` by the counts-matrix method (see module docstring).

    ``progress(k)`` is called with the number of draws finished after each batch."""
    counts = np.asarray(counts)
    if counts.ndim != 3:
        raise ValueError("counts must be (clusters, seeds, stats)")
    n_clusters, n_seeds, n_stats = counts.shape
    dtype = gemm_dtype(counts)
    # identical count columns (e.g. the claim counts that are every FEVER denominator) are
    # multiplied once and expanded afterwards
    unique, inverse = np.unique(counts.reshape(n_clusters, n_seeds * n_stats), axis=1, return_inverse=True)
    unique = np.ascontiguousarray(unique, dtype=dtype)
    inverse = inverse.reshape(-1)
    rng = np.random.Generator(np.random.PCG64(seed))
    out = None
    with one_blas_thread():
        for start, idx, sidx in draw_batches(rng, n_clusters, n_seeds, draws, batch_size, resample_seeds):
            b = idx.shape[0]
            w = multiplicities(idx, n_clusters).astype(dtype)
            tot = (w @ unique)[:, inverse].astype(np.float64).reshape(b, n_seeds, n_stats)
            tot = tot[np.arange(b)[:, None], sidx]
            vals = statistic(tot)
            if out is None:
                out = np.empty((draws, vals.shape[1]), dtype=np.float64)
            out[start:start + b] = vals
            if progress is not None:
                progress(start + b)
    return out


@dataclass(frozen=True)
class BootstrapJob:
    """What one set of intervals needs from the draws: per-cluster ``counts`` (clusters, seeds,
    stats), the ``statistic`` of their resampled totals, and ``finish`` turning the draws
    (draws, outputs) into result rows."""

    counts: np.ndarray
    statistic: Statistic
    finish: Callable[[np.ndarray], list]


def run_jobs(jobs: Sequence[BootstrapJob], *, draws: int, seed: int, batch_size: int = 128,
             resample_seeds: bool = True, progress: Callable[[int], None] | None = None) -> list[list]:
    """The rows of every job from one set of draws: the jobs' count columns side by side in one
    :func:`bootstrap_draws` call, each statistic on its own columns. The index draws depend only
    on the seed, the cluster and seed counts and the batch size, and every total is an exact
    integer sum, so each job gets bit-identically the draws it would get alone, for the cost of
    one set of index draws and multiplicity matrices."""
    if not jobs:
        return []
    shapes = {job.counts.shape[:2] for job in jobs}
    if len(shapes) != 1:
        raise ValueError(f"jobs drawn together must share their clusters and seeds, got shapes {sorted(shapes)}")
    bounds = np.cumsum([0] + [job.counts.shape[2] for job in jobs])
    counts = np.concatenate([job.counts for job in jobs], axis=2)
    widths = []

    def statistic(tot: np.ndarray) -> np.ndarray:
        outs = [job.statistic(tot[:, :, lo:hi]) for job, lo, hi in zip(jobs, bounds[:-1], bounds[1:])]
        widths[:] = [o.shape[1] for o in outs]
        return np.concatenate(outs, axis=1)

    drawn = bootstrap_draws(counts, statistic, draws=draws, seed=seed, batch_size=batch_size,
                            resample_seeds=resample_seeds, progress=progress)
    edges = np.cumsum([0] + widths)
    return [job.finish(np.ascontiguousarray(drawn[:, lo:hi])) for job, lo, hi in zip(jobs, edges[:-1], edges[1:])]


def percentile_interval(draws: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """Linear-interpolation percentile bounds at ``tail`` and ``1 - tail`` per column."""
    if not 0 < tail < 0.5:
        raise ValueError("tail must lie in (0, 0.5)")
    lo = np.quantile(draws, tail, axis=0, method="linear")
    hi = np.quantile(draws, 1 - tail, axis=0, method="linear")
    return lo, hi


def bonferroni_tail(alpha: float, family_size: int) -> float:
    """Two-sided Bonferroni tail probability alpha / (2 m)."""
    return alpha / (2 * family_size)


def equal_denominators(counts: np.ndarray, den_cols: Sequence[int]) -> dict[int, int]:
    """Map each denominator column to the first column that is identical to it in every
    cluster and seed (so equal in every resampled draw): FEVER/FEVEROUS claim counts are the
    same for every cell, SciFact P_a + R differs by answer source."""
    canon: dict[int, int] = {}
    reps: list[int] = []
    for d in den_cols:
        if d in canon:
            continue
        for r in reps:
            if np.array_equal(counts[:, :, d], counts[:, :, r]):
                canon[d] = r
                break
        else:
            reps.append(d)
            canon[d] = d
    return canon


def contrast_statistic(contrasts: Sequence[Sequence[tuple[Fraction, tuple]]], stat_index: dict,
                       multiplier: int, counts: np.ndarray | None = None) -> Statistic:
    """Statistic for linear contrasts of per-seed corpus scores, averaged over seeds.

    ``stat_index[cell] = (numerator column, denominator column)`` into the stats axis; a
    cell's score is ``100 * multiplier * C / D`` per sampled seed. Terms of a contrast that
    share a denominator (identical columns in ``counts``, see :func:`equal_denominators`)
    are combined on the numerators first, ``100 * multiplier * (sum coef * C) / D``: the
    coefficients are dyadic (1, 1/2, 1/4, ...), so the combination is exact and a contrast
    whose numerators cancel is exactly 0 (every FEVER/FEVEROUS contrast is one such group).
    Group scores are averaged over the sampled seeds by a fixed left-to-right sum, then the
    groups of a contrast are added in order (padded with zero-weight repeats). Every step is
    exact or element-wise, so results do not depend on the batch size and the per-draw
    reference loop gives bit-identical values."""
    den_of = {cell: stat_index[cell][1] for terms in contrasts for _, cell in terms}
    canon = equal_denominators(counts, sorted(set(den_of.values()))) if counts is not None else {}
    groups: list[tuple[int, dict]] = []  # (denominator column, {numerator column: coef})
    contrast_groups: list[list[int]] = []
    for terms in contrasts:
        mine: dict[int, int] = {}
        for coef, cell in terms:
            coef = Fraction(coef)
            if coef.denominator & (coef.denominator - 1) or coef.denominator > 2 ** 20:
                raise ValueError(f"contrast coefficient {coef} is not a dyadic rational; the exact "
                                 "numerator combination needs 1/2^k coefficients")
            num_col, den_col = stat_index[cell]
            den_col = canon.get(den_col, den_col)
            if den_col not in mine:
                groups.append((den_col, {}))
                mine[den_col] = len(groups) - 1
            combo = groups[mine[den_col]][1]
            combo[num_col] = combo.get(num_col, Fraction(0)) + coef
        contrast_groups.append(list(mine.values()))
    n_stats = 1 + max([d for d, _ in groups] + [c for _, combo in groups for c in combo], default=0)
    weights = np.zeros((n_stats, len(groups)), dtype=np.float64)
    for g, (_, combo) in enumerate(groups):
        for col, coef in combo.items():
            weights[col, g] = float(coef)
    group_den = np.array([d for d, _ in groups], dtype=np.int64)
    width = max((len(g) for g in contrast_groups), default=0)
    pick = np.zeros((width, len(contrasts)), dtype=np.int64)
    use = np.zeros((width, len(contrasts)), dtype=np.float64)
    for i, gs in enumerate(contrast_groups):
        for j in range(width):
            pick[j, i] = gs[j] if j < len(gs) else (gs[0] if gs else 0)
            use[j, i] = 1.0 if j < len(gs) else 0.0
    scale = 100.0 * multiplier

    def statistic(tot: np.ndarray) -> np.ndarray:
        b, k, _ = tot.shape
        combos = tot[:, :, :n_stats] @ weights  # exact: dyadic coefficients x integer counts
        scores = combos * scale / tot[:, :, group_den]  # (b, k, groups)
        acc = scores[:, 0, :].copy()
        for j in range(1, k):
            acc = acc + scores[:, j, :]
        mean = acc / k
        out = np.zeros((b, len(contrasts)), dtype=np.float64)
        for j in range(width):
            out = out + use[j] * mean[:, pick[j]]
        return out

    return statistic
