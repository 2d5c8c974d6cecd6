"""Benchmark of the cluster bootstrap (writes benchmarks/results/bootstrap.json).

1. Counts-matrix implementation vs the plain per-draw loop (tests/support/bootstrap_reference.py),
   side by side on the same seed: 2,000 families x 4 conditions (T00 and T01 at two
   budgets, E0 and the context contrast), five resampled seed indices; speed-up (target
   >= 6x) and whether the draws are bit-identical.
2. One 1,000,000-draw primary panel (2,000 families, format and context effects on E0).
3. The 60-comparison exploratory family: 3 datasets x 2 models x 10 contrasts, 1,000,000
   draws per panel, models of a dataset bootstrapped jointly (target < 120 s on one core).

Run with one BLAS thread:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bootstrap.py
Options: --reference-draws N (default 5000), --draws N (default 1000000), --quick.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from fractions import Fraction
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the reference loop lives beside the tests

from support.bootstrap_reference import reference_bootstrap_draws  # noqa: E402
from evidence_ledger.resampling.bootstrap import bonferroni_tail, bootstrap_draws, contrast_statistic, percentile_interval  # noqa: E402
from evidence_ledger.accounting.estimands import family_contrasts, linear  # noqa: E402
from evidence_ledger.accounting.intervals import panel_counts, panel_intervals  # noqa: E402
from evidence_ledger.accounting.panel import CountPanel  # noqa: E402


def synthetic_panel(n_families: int, system: str, seed: int, metric: str = "strict") -> CountPanel:
    """A 2 formats x 2 sources x 2 budgets (crossed) x 5 seeds family panel with realistic
    counts: families of 1-3 claims, correctness ~0.6, eligibility ~0.4-0.5."""
    rng = np.random.default_rng(seed)
    sizes = rng.choice([1, 1, 1, 2, 3], size=n_families)
    R, F, A, U, B, V = 5, 2, 2, 2, 2, 2
    correct = rng.binomial(sizes[:, None, None, None, None], 0.6, size=(n_families, R, F, A, U))
    eligible = rng.binomial(1, 0.45, size=(n_families, 1, 1, 1, 1, B, V))
    num = np.minimum(correct[..., None, None], sizes[:, None, None, None, None, None, None] * eligible)
    den = np.broadcast_to(sizes[:, None, None, None, None], (n_families, R, F, A, U)).astype(np.int64)
    return CountPanel("fever", system, metric, [str(i + 1) for i in range(n_families)], [1, 2, 3, 4, 5],
                          ["codes", "labels"], ["bm25", "bge"], ["short", "long"], ["short", "long"],
                          num.astype(np.int64), den.copy())


def four_conditions():
    """T00/T01 at the short and long budget (format 0): E0(short), E0(long), context."""
    t = lambda a, b, u: ((Fraction(1), (0, a, u, b, u)),)
    e0s = linear((1, t(0, 1, 0)), (-1, t(0, 0, 0)))
    e0l = linear((1, t(0, 1, 1)), (-1, t(0, 0, 1)))
    return [t(0, 0, 0), t(0, 1, 0), t(0, 0, 1), t(0, 1, 1), e0s, e0l, linear((1, e0l), (-1, e0s))]


def timed(fn):
    """(result, wall seconds); CPU seconds of this process are kept in ``timed.cpu``."""
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    timed.cpu = time.process_time() - cpu
    return out, time.perf_counter() - start


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference-draws", type=int, default=5000)
    ap.add_argument("--draws", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="20,000-draw panels (smoke run)")
    ap.add_argument("--out", default=str(REPO / "benchmarks/results/bootstrap.json"))
    args = ap.parse_args(argv)
    draws = 20_000 if args.quick else args.draws
    result = {"machine": {"python": platform.python_version(), "numpy": np.__version__,
                          "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                          "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")},
              "seed": 20260916, "batch_size": 128}

    # 1. side by side
    panel = synthetic_panel(2000, "m", 1)
    contrasts = four_conditions()
    counts, index = panel_counts(panel, contrasts, [1, 2, 3, 4, 5])
    stat = contrast_statistic(contrasts, index, panel.multiplier, counts)
    n = args.reference_draws
    fast, t_fast = timed(lambda: bootstrap_draws(counts, stat, draws=n, seed=20260916, batch_size=128))
    cpu_fast = timed.cpu
    slow, t_slow = timed(lambda: reference_bootstrap_draws(counts, stat, draws=n, seed=20260916, batch_size=128))
    cpu_slow = timed.cpu
    tail = bonferroni_tail(0.05, 12)
    identical = bool(np.array_equal(fast, slow)) and all(
        np.array_equal(a, b) for a, b in zip(percentile_interval(fast, tail), percentile_interval(slow, tail)))
    result["side_by_side"] = {"families": 2000, "conditions": 4, "outputs": len(contrasts), "draws": n,
                              "counts_matrix_s": round(t_fast, 3), "reference_loop_s": round(t_slow, 3),
                              "speedup": round(t_slow / t_fast, 2), "counts_matrix_cpu_s": round(cpu_fast, 3),
                              "reference_loop_cpu_s": round(cpu_slow, 3), "cpu_speedup": round(cpu_slow / cpu_fast, 2),
                              "bit_identical": identical, "target_speedup": 6}
    print(json.dumps(result["side_by_side"]), flush=True)

    # 2. one primary panel
    comps = family_contrasts("primary")
    counts, index = panel_counts(panel, [c for _, _, c in comps], [1, 2, 3, 4, 5])
    stat = contrast_statistic([c for _, _, c in comps], index, 1, counts)
    _, t_panel = timed(lambda: bootstrap_draws(counts, stat, draws=draws, seed=20260916, batch_size=128))
    result["primary_panel"] = {"families": 2000, "draws": draws, "seconds": round(t_panel, 2),
                               "cpu_seconds": round(timed.cpu, 2),
                               "count_columns": int(counts.shape[1] * counts.shape[2])}
    print(json.dumps(result["primary_panel"]), flush=True)

    # 3. the 60-comparison exploratory family
    start, cpu = time.perf_counter(), time.process_time()
    rows = []
    for d in range(3):
        models = [synthetic_panel(2000, m, 10 * d + k) for k, m in enumerate(("qwen3", "llama31"))]
        rows += panel_intervals(models, "exploratory", replicates=[1, 2, 3, 4, 5], resample_seeds=True,
                                   draws=draws, seed=20260916, batch_size=128, tail=bonferroni_tail(0.05, 60))
    t_family, cpu_family = time.perf_counter() - start, time.process_time() - cpu
    result["exploratory_family"] = {"panels": 6, "comparisons": len(rows), "families_per_panel": 2000,
                                    "draws_per_panel": draws, "seconds": round(t_family, 2),
                                    "cpu_seconds": round(cpu_family, 2), "target_seconds": 120}
    result["note"] = ("wall seconds were measured on a shared 2-core machine (load average "
                      f"{os.getloadavg()[0]:.1f} at the end); cpu_seconds count only this process's CPU time")
    print(json.dumps(result["exploratory_family"]), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()
