"""Generic resampling, with no knowledge of studies, datasets or panels.

* ``bootstrap``: seeded, batched cluster bootstrap over integer count arrays (in: per-cluster
  counts and a statistic; out: draws and percentile intervals), used by ``accounting`` and
  ``diffgr``.
"""
