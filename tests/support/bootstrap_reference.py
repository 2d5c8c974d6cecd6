"""The plain per-draw reference loop of the cluster bootstrap (kept beside the tests).

Same draw protocol as ``evidence_ledger.resampling.bootstrap.bootstrap_draws`` (one PCG64 generator,
batches of cluster indices then seed indices), but every draw sums ``counts[idx]`` in int64
and evaluates the statistic on its own: no multiplicity matrix, no GEMM. Used by
tests/unit/resampling/test_bootstrap.py and benchmarks/bootstrap.py.
"""
import numpy as np

from evidence_ledger.resampling.bootstrap import draw_batches


def reference_bootstrap_draws(counts, statistic, *, draws, seed, batch_size=128, resample_seeds=True):
    counts = np.asarray(counts, dtype=np.int64)
    n_clusters, n_seeds, _ = counts.shape
    rng = np.random.Generator(np.random.PCG64(seed))
    out = None
    for start, idx, sidx in draw_batches(rng, n_clusters, n_seeds, draws, batch_size, resample_seeds):
        for d in range(idx.shape[0]):
            tot = counts[idx[d]].sum(axis=0)
            tot = tot[np.asarray(sidx[d])].astype(np.float64)[None]
            vals = statistic(tot)[0]
            if out is None:
                out = np.empty((draws, vals.shape[0]), dtype=np.float64)
            out[start + d] = vals
    return out
